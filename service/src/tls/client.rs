//! What the clients trust, and certificate problems said in words with their fix.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{CertificateError, RootCertStore};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// A private CA's file (`--ca-cert`, `DURAK_CA_CERT`) that cannot be trusted: the file, where
/// it was named (`origin`) and the fix.
#[derive(Debug, thiserror::Error)]
pub enum CaError {
    #[error(
        "{} ({origin}): cannot read the CA certificate: {source}\n  fix: give the PEM file of \
         the CA that signed the server's certificate",
        path.display()
    )]
    Unreadable {
        path: PathBuf,
        origin: &'static str,
        source: std::io::Error,
    },
    #[error("{} ({origin}): not a PEM file: {detail}", path.display())]
    NotPem {
        path: PathBuf,
        origin: &'static str,
        detail: String,
    },
    #[error(
        "{} ({origin}): no certificate in it\n  fix: give the CA's certificate in PEM, the file \
         that starts with -----BEGIN CERTIFICATE-----",
        path.display()
    )]
    NoCertificate { path: PathBuf, origin: &'static str },
    #[error(
        "{} ({origin}): a certificate in it cannot be a CA: {detail}\n  fix: give the CA's own \
         certificate (not the server's key or a request)",
        path.display()
    )]
    NotACa {
        path: PathBuf,
        origin: &'static str,
        detail: String,
    },
}

/// The certificate authorities a client trusts: the platform's (`/etc/ssl/certs` on Debian, read
/// by rustls-native-certs, which honours `SSL_CERT_FILE` and `SSL_CERT_DIR`) and, if given, a
/// private CA.
#[derive(Clone, Debug, Default)]
pub struct Trust {
    /// A private CA's certificate (PEM), trusted besides the platform's.
    pub ca_cert: Option<PathBuf>,
    /// Where it was named: `--ca-cert` or `DURAK_CA_CERT`.
    pub origin: &'static str,
}

impl Trust {
    /// `--ca-cert FILE` if given, else `DURAK_CA_CERT` if set, else the platform's roots only.
    pub fn from_flag(flag: Option<PathBuf>) -> Trust {
        match flag {
            Some(p) => Trust {
                ca_cert: Some(p),
                origin: "--ca-cert",
            },
            None => Trust::from_env(),
        }
    }

    /// `DURAK_CA_CERT` if set (and not empty), else the platform's roots only.
    pub fn from_env() -> Trust {
        match std::env::var_os(super::CA_CERT_ENV).filter(|v| !v.is_empty()) {
            Some(p) => Trust {
                ca_cert: Some(p.into()),
                origin: super::CA_CERT_ENV,
            },
            None => Trust::default(),
        }
    }

    /// ureq's TLS settings: rustls with ring, these roots.
    pub fn tls_config(&self) -> Result<ureq::tls::TlsConfig, CaError> {
        let mut roots: Vec<ureq::tls::Certificate<'static>> = platform_roots()
            .iter()
            .map(|c| ureq::tls::Certificate::from_der(c.as_ref()).to_owned())
            .collect();
        if let Some(path) = &self.ca_cert {
            for c in read_ca(path, self.origin)? {
                roots.push(ureq::tls::Certificate::from_der(c.as_ref()).to_owned());
            }
        }
        Ok(ureq::tls::TlsConfig::builder()
            .provider(ureq::tls::TlsProvider::Rustls)
            .unversioned_rustls_crypto_provider(super::provider())
            .root_certs(ureq::tls::RootCerts::Specific(Arc::new(roots)))
            .build())
    }
}

/// The platform's CA certificates, read once.
fn platform_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        if found.certs.is_empty() {
            for e in &found.errors {
                tracing::warn!("the platform's CA certificates: {e}");
            }
        }
        found.certs
    })
}

/// The certificates of a private CA's PEM file, each checked to be usable as a root.
fn read_ca(path: &Path, origin: &'static str) -> Result<Vec<CertificateDer<'static>>, CaError> {
    let path_buf = || path.to_path_buf();
    let bytes = std::fs::read(path).map_err(|source| CaError::Unreadable {
        path: path_buf(),
        origin,
        source,
    })?;
    let certs: Vec<_> = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<_, _>>()
        .map_err(|e| CaError::NotPem {
            path: path_buf(),
            origin,
            detail: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(CaError::NoCertificate {
            path: path_buf(),
            origin,
        });
    }
    let mut store = RootCertStore::empty();
    for c in &certs {
        store.add(c.clone()).map_err(|e| CaError::NotACa {
            path: path_buf(),
            origin,
            detail: e.to_string(),
        })?;
    }
    Ok(certs)
}

/// Whether a request to `url` would carry a token in clear: `http://` to a host other than this
/// machine (`localhost`, `127.0.0.0/8`, `::1`).
pub fn in_clear(url: &str) -> bool {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else {
        return false;
    };
    if uri.scheme_str() != Some("http") {
        return false;
    }
    let host = uri.host().unwrap_or("");
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    !loopback
}

/// The warning printed when a token is about to travel in clear (`None` when it does not).
pub fn clear_warning(url: &str) -> Option<String> {
    in_clear(url).then(|| {
        format!(
            "WARNING: {url} is plain http://: your token travels in clear, readable by anyone \
             on the way\n  fix: use the server's https:// address (docs/SERVICE.md, \"Putting it \
             on the internet\")"
        )
    })
}

/// The TLS error inside a ureq error, if there is one.
fn rustls_error(e: &ureq::Error) -> Option<&rustls::Error> {
    match e {
        ureq::Error::Rustls(r) => Some(r),
        ureq::Error::Io(io) => io.get_ref().and_then(|x| x.downcast_ref::<rustls::Error>()),
        _ => None,
    }
}

/// A failed request to `url`, in words; a certificate problem with its fix.
pub fn explain(e: &ureq::Error, url: &str, trust: &Trust) -> String {
    let host = url
        .parse::<ureq::http::Uri>()
        .ok()
        .and_then(|u| u.host().map(str::to_string))
        .unwrap_or_default();
    let ca = match &trust.ca_cert {
        Some(p) => format!(" (besides {} from {})", p.display(), trust.origin),
        None if platform_roots().is_empty() => {
            " (this machine has no CA certificates: apt-get install ca-certificates)".into()
        }
        None => String::new(),
    };
    let Some(r) = rustls_error(e) else {
        return match e {
            ureq::Error::TlsRequired => format!(
                "{url}: this client was built without TLS\n  fix: use a durak built with the \
                 default features"
            ),
            other => format!("{url}: {other}"),
        };
    };
    match r {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer | CertificateError::BadSignature => format!(
                "{url}: the server's certificate is not signed by a CA this machine trusts{ca}\n  \
                 fix: pass --ca-cert FILE (or {}=FILE) with the CA that signed it, or give the \
                 server a certificate from a public CA such as Let's Encrypt (docs/SERVICE.md, \
                 \"Putting it on the internet\")",
                super::CA_CERT_ENV
            ),
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!(
                    "{url}: the server's certificate is not for the host name {host:?}\n  fix: \
                     use a name the certificate was issued for in --server (for example the \
                     domain name instead of an IP address), or have the certificate issued for \
                     {host:?}"
                )
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => format!(
                "{url}: the server's certificate has expired\n  fix: the server's organiser must \
                 renew it (certbot renew; durak serve picks up the new files by itself); if it \
                 was renewed, check this machine's clock"
            ),
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                format!(
                    "{url}: the server's certificate is not valid yet\n  fix: check this \
                     machine's clock (and the server's)"
                )
            }
            CertificateError::Revoked => format!(
                "{url}: the server's certificate was revoked\n  fix: the server's organiser must \
                 get a new one"
            ),
            other => format!(
                "{url}: the server's certificate was refused: {other:?}\n  fix: check the \
                 server's certificate (openssl s_client -connect {host}:443)"
            ),
        },
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => format!(
            "{url}: the server does not speak TLS there ({r})\n  fix: if the server is plain \
             HTTP, use http:// (on this machine or a private network only); else check the port"
        ),
        other => format!("{url}: TLS: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_to_another_host_is_in_clear_loopback_and_https_are_not() {
        assert!(in_clear("http://judge.example.org:8080"));
        assert!(in_clear("http://192.0.2.7/"));
        assert!(in_clear("http://[2001:db8::1]:80/"));
        assert!(!in_clear("http://127.0.0.1:8080"));
        assert!(!in_clear("http://127.9.9.9/"));
        assert!(!in_clear("http://localhost:8080/"));
        assert!(!in_clear("http://LOCALHOST/"));
        assert!(!in_clear("http://[::1]:8080/"));
        assert!(!in_clear("https://judge.example.org"));
        let w = clear_warning("http://judge.example.org").unwrap();
        assert!(w.contains("in clear") && w.contains("https://"), "{w}");
        assert!(clear_warning("https://judge.example.org").is_none());
    }

    #[test]
    fn a_bad_ca_file_is_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.pem");
        let t = Trust {
            ca_cert: Some(missing.clone()),
            origin: "--ca-cert",
        };
        let e = t.tls_config().unwrap_err();
        assert!(matches!(e, CaError::Unreadable { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("nope.pem") && e.contains("--ca-cert") && e.contains("fix:"),
            "{e}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let t = Trust {
            ca_cert: Some(empty),
            origin: "DURAK_CA_CERT",
        };
        let e = t.tls_config().unwrap_err();
        assert!(matches!(e, CaError::NoCertificate { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("empty.pem") && e.contains("no certificate") && e.contains("DURAK_CA_CERT"),
            "{e}"
        );
    }
}
