//! Time zones for `Intl` and `Date`, from jiff's bundled IANA database,
//! never the host's: a zone's canonical name and its offset at an instant
//! (`web/intldate.js`), and the run's zone of local time, which the request
//! sets and QuickJS reads through the project's patch
//! (`JS_CoderunSetTimezoneOffset`).

/// `timeZone(name)`: the IANA zone's canonical name (its case as the
/// database writes it), or `None` for a zone the database lacks.
pub fn time_zone(name: String) -> Option<String> {
    if name.len() > 256 {
        return None;
    }
    let zone = jiff::tz::db().get(&name).ok()?;
    zone.iana_name().map(str::to_owned)
}

/// The names `Intl` takes for UTC (compared lowercased).
const UTC_NAMES: [&str; 18] = [
    "utc",
    "etc/utc",
    "etc/gmt",
    "gmt",
    "etc/uct",
    "uct",
    "etc/universal",
    "universal",
    "etc/zulu",
    "zulu",
    "etc/greenwich",
    "greenwich",
    "gmt0",
    "etc/gmt0",
    "gmt+0",
    "gmt-0",
    "etc/gmt+0",
    "etc/gmt-0",
];

thread_local! {
    /// The run's zone of local time: its canonical name and the zone.
    static LOCAL_ZONE: std::cell::RefCell<(String, jiff::tz::TimeZone)> =
        std::cell::RefCell::new(("UTC".to_owned(), jiff::tz::TimeZone::UTC));
}

/// Makes `name` (the request's time zone; `None`: UTC) the zone of local
/// time for `Date` and `Intl.DateTimeFormat`'s default: an IANA name, a
/// name of UTC, or an offset (`+05:30`, `-0800`, `+05`). The message says
/// why a name is refused.
pub fn set_local_zone(name: Option<&str>) -> Result<(), String> {
    let zone = match name {
        // Every run is a fresh instance, whose zone is already UTC.
        None => return Ok(()),
        Some(name) if UTC_NAMES.contains(&name.to_ascii_lowercase().as_str()) => {
            ("UTC".to_owned(), jiff::tz::TimeZone::UTC)
        }
        Some(name) => match fixed_offset(name) {
            Some(minutes) => {
                let sign = if minutes < 0 { '-' } else { '+' };
                let canonical =
                    format!("{sign}{:02}:{:02}", minutes.abs() / 60, minutes.abs() % 60);
                // Within ±23:59, which an offset always holds.
                let offset = jiff::tz::Offset::from_seconds(minutes * 60)
                    .map_err(|_| format!("RangeError: the offset {canonical} is out of range"))?;
                (canonical, jiff::tz::TimeZone::fixed(offset))
            }
            None => {
                let zone = (name.len() <= 256)
                    .then(|| jiff::tz::db().get(name).ok())
                    .flatten()
                    .ok_or_else(|| {
                        let shown: String = name.chars().take(64).collect();
                        format!(
                            "RangeError: the request's time zone {shown:?} is not one this \
                             sandbox knows: give an IANA name (America/New_York), UTC, or an \
                             offset (+05:30)"
                        )
                    })?;
                let canonical = zone.iana_name().unwrap_or(name).to_owned();
                (canonical, zone)
            }
        },
    };
    LOCAL_ZONE.with(|local| *local.borrow_mut() = zone);
    Ok(())
}

/// `+05:30`, `-0800` or `+05` (hours up to 23) as minutes east of UTC.
fn fixed_offset(name: &str) -> Option<i32> {
    let (sign, rest) = match name.as_bytes().first()? {
        b'+' => (1, &name[1..]),
        b'-' => (-1, &name[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|&c| c != ':').collect();
    let colon_ok =
        rest.len() == 2 || (rest.len() == 5 && rest.as_bytes()[2] == b':') || rest.len() == 4;
    if !colon_ok
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || !(digits.len() == 2 || digits.len() == 4)
    {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    (hours <= 23 && minutes <= 59).then_some(sign * (hours * 60 + minutes))
}

/// `localTimeZone()`: the canonical name of the run's zone of local time.
pub fn local_time_zone() -> String {
    LOCAL_ZONE.with(|local| local.borrow().0.clone())
}

/// QuickJS's offset of local time at `time_ms` (milliseconds since the
/// epoch), in minutes west of UTC (as `Date.prototype.getTimezoneOffset`
/// gives it), in the run's zone; handed to QuickJS by the project's patch.
pub extern "C" fn local_offset_minutes(time_ms: i64) -> std::ffi::c_int {
    let Ok(instant) = jiff::Timestamp::from_millisecond(time_ms) else {
        return 0;
    };
    let seconds = LOCAL_ZONE.with(|local| local.borrow().1.to_offset(instant).seconds());
    -(seconds / 60)
}

/// `timeZoneOffset(name, epochMs)`: `[offset in seconds, abbreviation,
/// dst]` of the zone at the instant, or `None` when either is out of range.
pub fn time_zone_offset(name: String, epoch_ms: f64) -> Option<Vec<String>> {
    if !epoch_ms.is_finite() {
        return None;
    }
    let zone = jiff::tz::db().get(&name).ok()?;
    let instant = jiff::Timestamp::from_millisecond(epoch_ms as i64).ok()?;
    let info = zone.to_offset_info(instant);
    Some(vec![
        info.offset().seconds().to_string(),
        info.abbreviation().to_owned(),
        if info.dst().is_dst() { "1" } else { "" }.to_owned(),
    ])
}
