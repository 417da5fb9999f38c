//! HTTPS through rustls (the ring provider), on both sides.
//!
//! - [`client`]: what the clients (`durak submit --server`, `durak worker`, `durak
//!   worker-token`) trust: the platform's roots plus a private CA (`--ca-cert FILE` or
//!   `DURAK_CA_CERT`); certificate problems worded with their fix; the warning for a token sent
//!   in clear.
//! - [`server`]: `durak serve --tls-cert FILE --tls-key FILE` (or `[tls]` in serve.toml): the
//!   listener that speaks TLS, and the certificate reloaded when its files change (a renewal
//!   needs no restart).

pub mod client;
pub mod server;

use std::sync::Arc;

/// The crypto provider of both sides: ring (quicker to build than aws-lc-rs), named explicitly
/// so that nothing depends on a process-wide default. rustls marks ring's provider deprecated
/// because it has no post-quantum key exchange (aws-lc-rs has); X25519 and the NIST curves are
/// what it offers, as every browser still does too.
#[allow(deprecated)]
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The environment variable naming a private CA's certificate (PEM) that the clients trust
/// besides the platform's roots; `--ca-cert FILE` wins over it.
pub const CA_CERT_ENV: &str = "DURAK_CA_CERT";
