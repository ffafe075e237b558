//! Which addresses a request may reach: decided after the name is
//! resolved, by the resolver the HTTP client connects through, so that the
//! address checked is the address connected to (DNS rebinding cannot slip
//! a private address in between).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// What the policy lets requests reach besides public addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Reach {
    pub(crate) loopback: bool,
    pub(crate) private: bool,
}

/// The kinds of address a policy may refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Loopback,
    Private,
    /// Never reachable: link-local (cloud metadata), unspecified,
    /// multicast, broadcast, reserved.
    Never(&'static str),
}

/// An address the policy refuses, with what it is.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.message())]
pub(crate) struct AddressRefused {
    /// The name that resolved to it, or `None` for an address literal.
    pub(crate) name: Option<String>,
    pub(crate) ip: IpAddr,
    kind: Kind,
}

impl AddressRefused {
    fn message(&self) -> String {
        let (what, why) = match self.kind {
            Kind::Loopback => (
                "a loopback address",
                ", and the policy does not allow loopback addresses",
            ),
            Kind::Private => (
                "a private address",
                ", and the policy does not allow private addresses",
            ),
            Kind::Never(what) => (what, ", which the network policy always refuses"),
        };
        match &self.name {
            Some(name) => format!(
                "refused by the network policy: {name} resolves to {}, {what}{why}",
                self.ip
            ),
            None => format!("refused by the network policy: {} is {what}{why}", self.ip),
        }
    }
}

fn kind(ip: IpAddr) -> Option<Kind> {
    match ip {
        IpAddr::V4(v4) => kind_v4(v4),
        IpAddr::V6(v6) => kind_v6(v6),
    }
}

fn kind_v4(ip: Ipv4Addr) -> Option<Kind> {
    let [a, b, c, _] = ip.octets();
    if ip.is_loopback() {
        return Some(Kind::Loopback);
    }
    if ip.is_link_local() {
        return Some(Kind::Never(
            "a link-local address (where cloud metadata services live)",
        ));
    }
    if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        return Some(Kind::Private);
    }
    if ip.is_unspecified() || a == 0 {
        return Some(Kind::Never("an unspecified address"));
    }
    if ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        return Some(Kind::Never("a multicast, broadcast or reserved address"));
    }
    // 192.0.0.0/24: IETF protocol assignments; 198.18.0.0/15: benchmarking.
    if (a == 192 && b == 0 && c == 0) || (a == 198 && (b == 18 || b == 19)) {
        return Some(Kind::Never("a reserved address"));
    }
    None
}

fn kind_v6(ip: Ipv6Addr) -> Option<Kind> {
    if ip.is_loopback() {
        return Some(Kind::Loopback);
    }
    if ip.is_unspecified() {
        return Some(Kind::Never("an unspecified address"));
    }
    // Addresses that carry an IPv4 one: mapped (::ffff:a.b.c.d), NAT64
    // (64:ff9b::/96) and 6to4 (2002::/16) are judged by it.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return kind_v4(v4);
    }
    let segments = ip.segments();
    if segments[0] == 0x64 && segments[1] == 0xff9b && segments[2..6] == [0, 0, 0, 0] {
        let [.., a, b, c, d] = ip.octets();
        return kind_v4(Ipv4Addr::new(a, b, c, d));
    }
    if segments[0] == 0x2002 {
        let [_, _, a, b, c, d, ..] = ip.octets();
        return kind_v4(Ipv4Addr::new(a, b, c, d));
    }
    if ip.is_unicast_link_local() {
        return Some(Kind::Never(
            "a link-local address (where cloud metadata services live)",
        ));
    }
    if ip.is_unique_local() {
        return Some(Kind::Private);
    }
    if ip.is_multicast() {
        return Some(Kind::Never("a multicast address"));
    }
    // Compatible (::a.b.c.d, deprecated) and the rest of ::/8.
    if segments[0] == 0 {
        return Some(Kind::Never("a reserved address"));
    }
    None
}

impl Reach {
    /// Whether `ip` may be reached; the refusal if not.
    pub(crate) fn check(self, name: Option<&str>, ip: IpAddr) -> Result<(), AddressRefused> {
        let refused = |kind| AddressRefused {
            name: name.map(str::to_owned),
            ip,
            kind,
        };
        match kind(ip) {
            None => Ok(()),
            Some(Kind::Loopback) if self.loopback => Ok(()),
            Some(Kind::Private) if self.private => Ok(()),
            Some(kind) => Err(refused(kind)),
        }
    }
}

/// The resolver the HTTP client connects through: the system's, with the
/// addresses the policy refuses taken out. A name left with none fails
/// with the first refusal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GuardedResolver(pub(crate) Reach);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let reach = self.0;
        let name = name.as_str().to_owned();
        Box::pin(async move {
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            let mut allowed = Vec::with_capacity(resolved.len());
            let mut first_refusal = None;
            for address in resolved {
                match reach.check(Some(&name), address.ip()) {
                    Ok(()) => allowed.push(address),
                    Err(refused) => {
                        first_refusal.get_or_insert(refused);
                    }
                }
            }
            if allowed.is_empty() {
                return Err(match first_refusal {
                    Some(refused) => Box::new(refused) as Box<dyn std::error::Error + Send + Sync>,
                    None => format!("{name} resolves to no address").into(),
                });
            }
            let addresses: Addrs = Box::new(allowed.into_iter());
            Ok(addresses)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(ip: &str, reach: Reach) -> Option<String> {
        let ip: IpAddr = ip.parse().expect("an address");
        reach
            .check(None, ip)
            .err()
            .map(|refused| refused.to_string())
    }

    #[test]
    fn private_loopback_link_local_and_reserved_addresses_are_refused() {
        let closed = Reach {
            loopback: false,
            private: false,
        };
        for ip in ["127.0.0.1", "::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1"] {
            assert!(refused(ip, closed).expect(ip).contains("loopback"), "{ip}");
        }
        for ip in [
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "100.64.0.1",
            "fd00::1",
            "fc00::1",
        ] {
            assert!(refused(ip, closed).expect(ip).contains("private"), "{ip}");
        }
        for ip in [
            "169.254.169.254",
            "fe80::1",
            "::ffff:169.254.169.254",
            "2002:a9fe:a9fe::1",
        ] {
            assert!(
                refused(ip, closed).expect(ip).contains("link-local"),
                "{ip}"
            );
        }
        for ip in [
            "0.0.0.0",
            "::",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "ff02::1",
        ] {
            assert!(refused(ip, closed).is_some(), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1::1", "8.8.8.8"] {
            assert_eq!(refused(ip, closed), None, "{ip}");
        }
        let open = Reach {
            loopback: true,
            private: true,
        };
        assert_eq!(refused("127.0.0.1", open), None);
        assert_eq!(refused("10.0.0.1", open), None);
        assert!(
            refused("169.254.169.254", open).is_some(),
            "metadata stays refused"
        );
    }
}
