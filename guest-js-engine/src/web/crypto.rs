//! Web Cryptography (https://w3c.github.io/webcrypto/): the digests
//! `crypto.subtle.digest` names and HMAC over them, through RustCrypto's
//! implementations. Algorithm names arrive normalised by `web/crypto.js`.

use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use rquickjs::{ArrayBuffer, Ctx, TypedArray};
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha384, Sha512};

/// The digest of `data` with `algorithm` (`SHA-1`, `SHA-256`, `SHA-384` or
/// `SHA-512`), or `None` for another name.
pub fn digest<'js>(
    ctx: Ctx<'js>,
    algorithm: String,
    data: TypedArray<'js, u8>,
) -> rquickjs::Result<Option<ArrayBuffer<'js>>> {
    let data = super::bytes_of(&data);
    let digest = match algorithm.as_str() {
        "SHA-1" => Sha1::digest(&data).to_vec(),
        "SHA-256" => Sha256::digest(&data).to_vec(),
        "SHA-384" => Sha384::digest(&data).to_vec(),
        "SHA-512" => Sha512::digest(&data).to_vec(),
        _ => return Ok(None),
    };
    ArrayBuffer::new(ctx, digest).map(Some)
}

/// The HMAC of `data` under `key` with `hash` (a name `digest` takes), or
/// `None` for another name.
pub fn hmac<'js>(
    ctx: Ctx<'js>,
    hash: String,
    key: TypedArray<'js, u8>,
    data: TypedArray<'js, u8>,
) -> rquickjs::Result<Option<ArrayBuffer<'js>>> {
    // HMAC takes a key of any length: `new_from_slice` cannot fail.
    fn mac<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Option<Vec<u8>> {
        let mut mac = <M as KeyInit>::new_from_slice(key).ok()?;
        mac.update(data);
        Some(mac.finalize().into_bytes().to_vec())
    }
    let (key, data) = (super::bytes_of(&key), super::bytes_of(&data));
    let tag = match hash.as_str() {
        "SHA-1" => mac::<Hmac<Sha1>>(&key, &data),
        "SHA-256" => mac::<Hmac<Sha256>>(&key, &data),
        "SHA-384" => mac::<Hmac<Sha384>>(&key, &data),
        "SHA-512" => mac::<Hmac<Sha512>>(&key, &data),
        _ => None,
    };
    tag.map(|tag| ArrayBuffer::new(ctx, tag)).transpose()
}
