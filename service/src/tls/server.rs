//! `durak serve` over HTTPS: the certificate (reloaded when its files change) and the listener
//! that does each connection's handshake before axum sees it.

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// How often the certificate's files are looked at (their modification time and size), at most.
pub const CHECK_EVERY: Duration = Duration::from_secs(3);

/// How long a client has for its handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshakes in progress at once, at most (more connections wait to be accepted).
const HANDSHAKES: usize = 256;

/// The certificate chain and key files (`--tls-cert`/`--tls-key`, `[tls] cert`/`key`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Why the server's certificate or key cannot be served: the file, the key of `[tls]` (and
/// its flag) and the fix.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// `what`: "certificate" or "key"; `flag`: `tls-cert` or `tls-key`.
    #[error(
        "{}: cannot read the TLS {what} (--{flag}, [tls] {}): {source}\n  fix: give the file's \
         path, readable by the user durak serve runs as",
        path.display(),
        &flag[4..]
    )]
    Unreadable {
        path: PathBuf,
        what: &'static str,
        flag: &'static str,
        source: std::io::Error,
    },
    #[error("{} ([tls] cert): not a PEM file: {detail}", path.display())]
    NotPem { path: PathBuf, detail: String },
    #[error(
        "{} ([tls] cert, --tls-cert): no certificate in it\n  fix: give the certificate chain in \
         PEM, -----BEGIN CERTIFICATE----- (certbot's fullchain.pem)",
        path.display()
    )]
    NoCertificate { path: PathBuf },
    #[error(
        "{} ([tls] key, --tls-key): no private key in it ({detail})\n  fix: give the \
         certificate's private key in PEM, -----BEGIN PRIVATE KEY----- (certbot's privkey.pem)",
        path.display()
    )]
    NoKey { path: PathBuf, detail: String },
    #[error(
        "{} ([tls] key): this kind of key is not supported: {detail}\n  fix: use an ECDSA \
         (P-256, P-384), Ed25519 or RSA key",
        path.display()
    )]
    UnsupportedKey { path: PathBuf, detail: String },
    #[error(
        "{} ([tls] key) is not the key of {} ([tls] cert): {detail}\n  fix: give the key the \
         certificate was issued for (both from the same renewal)",
        key.display(),
        cert.display()
    )]
    NotItsKey {
        key: PathBuf,
        cert: PathBuf,
        detail: String,
    },
    /// rustls refused the settings.
    #[error("TLS: {0}")]
    Settings(rustls::Error),
}

/// Read and check the certificate chain and its key.
pub fn load(files: &TlsFiles, provider: &CryptoProvider) -> Result<CertifiedKey, TlsError> {
    let cert = &files.cert;
    let key = &files.key;
    let read = |p: &Path, what: &'static str, flag: &'static str| {
        std::fs::read(p).map_err(|source| TlsError::Unreadable {
            path: p.to_path_buf(),
            what,
            flag,
            source,
        })
    };
    let cert_pem = read(cert, "certificate", "tls-cert")?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| TlsError::NotPem {
            path: cert.clone(),
            detail: e.to_string(),
        })?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate { path: cert.clone() });
    }
    let key_pem = read(key, "key", "tls-key")?;
    let der = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| TlsError::NoKey {
        path: key.clone(),
        detail: e.to_string(),
    })?;
    let signing =
        provider
            .key_provider
            .load_private_key(der)
            .map_err(|e| TlsError::UnsupportedKey {
                path: key.clone(),
                detail: e.to_string(),
            })?;
    let ck = CertifiedKey::new(chain, signing);
    ck.keys_match().map_err(|e| TlsError::NotItsKey {
        key: key.clone(),
        cert: cert.clone(),
        detail: e.to_string(),
    })?;
    Ok(ck)
}

/// What identifies a version of a file: its modification time, size and inode (a renewal that
/// replaces a symbolic link, as certbot's, changes them).
fn stamp(p: &Path) -> Option<(SystemTime, u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len(), m.ino()))
}

type Stamps = (
    Option<(SystemTime, u64, u64)>,
    Option<(SystemTime, u64, u64)>,
);

struct State {
    current: Arc<CertifiedKey>,
    stamps: Stamps,
    checked: Instant,
}

/// The server's certificate, read again when its files change (looked at during a handshake, at
/// most every [`CHECK_EVERY`]). A new pair that does not load keeps the previous certificate and
/// says why on stderr, once per change of the files.
pub struct ReloadingCert {
    files: TlsFiles,
    provider: Arc<CryptoProvider>,
    state: Mutex<State>,
}

impl std::fmt::Debug for ReloadingCert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReloadingCert")
            .field("files", &self.files)
            .finish()
    }
}

impl ReloadingCert {
    /// Load the files now (an error names the file, the key and the fix).
    pub fn new(files: TlsFiles, provider: Arc<CryptoProvider>) -> Result<ReloadingCert, TlsError> {
        let stamps = (stamp(&files.cert), stamp(&files.key));
        let current = Arc::new(load(&files, &provider)?);
        Ok(ReloadingCert {
            files,
            provider,
            state: Mutex::new(State {
                current,
                stamps,
                checked: Instant::now(),
            }),
        })
    }

    /// The certificate to serve, after reading the files again if they changed.
    pub fn current(&self) -> Arc<CertifiedKey> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.checked.elapsed() >= CHECK_EVERY {
            s.checked = Instant::now();
            let stamps = (stamp(&self.files.cert), stamp(&self.files.key));
            if stamps != s.stamps {
                s.stamps = stamps;
                match load(&self.files, &self.provider) {
                    Ok(k) => {
                        s.current = Arc::new(k);
                        eprintln!(
                            "durak serve: {}: a new certificate, served from now on",
                            self.files.cert.display()
                        );
                    }
                    Err(e) => eprintln!(
                        "durak serve: the certificate's files changed but do not load; the \
                         previous certificate is still served:\n  {}",
                        e.to_string().replace('\n', "\n  ")
                    ),
                }
            }
        }
        s.current.clone()
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// The TLS settings of the server: HTTP/1.1 with this certificate.
pub fn acceptor(files: &TlsFiles) -> Result<TlsAcceptor, TlsError> {
    let provider = super::provider();
    let resolver = Arc::new(ReloadingCert::new(files.clone(), provider.clone())?);
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(TlsError::Settings)?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A listener whose connections have done their TLS handshake: a task accepts TCP connections
/// and does each handshake in its own task (at most [`HANDSHAKES`] at once, each within
/// [`HANDSHAKE_TIMEOUT`]), so a slow or silent client never holds up the others.
pub struct TlsListener {
    ready: tokio::sync::mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl TlsListener {
    /// Start accepting on `tcp` (inside a tokio runtime).
    pub fn new(tcp: TcpListener, acceptor: TlsAcceptor) -> std::io::Result<TlsListener> {
        let addr = tcp.local_addr()?;
        let (tx, ready) = tokio::sync::mpsc::channel(64);
        let permits = Arc::new(tokio::sync::Semaphore::new(HANDSHAKES));
        let task = tokio::spawn(async move {
            loop {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    return;
                };
                let (stream, peer) = match tcp.accept().await {
                    Ok(c) => c,
                    Err(e) => {
                        // Out of descriptors and the like: wait, as axum's own listener does.
                        tracing::warn!("accepting a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    let _permit = permit;
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = tx.send((tls, peer)).await;
                        }
                        Ok(Err(e)) => tracing::debug!("TLS handshake with {peer}: {e}"),
                        Err(_) => tracing::debug!("TLS handshake with {peer}: timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { ready, addr, task })
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(c) => c,
            // The accepting task ended (the runtime is stopping): no more connections.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_empty_certificate_names_the_file_the_key_and_the_fix() {
        let d = tempfile::tempdir().unwrap();
        let files = TlsFiles {
            cert: d.path().join("fullchain.pem"),
            key: d.path().join("privkey.pem"),
        };
        let e = load(&files, &super::super::provider()).unwrap_err();
        assert!(
            matches!(
                e,
                TlsError::Unreadable {
                    what: "certificate",
                    ..
                }
            ),
            "{e:?}"
        );
        let m = e.to_string();
        assert!(
            m.contains("fullchain.pem") && m.contains("[tls] cert") && m.contains("fix:"),
            "{m}"
        );
        std::fs::write(&files.cert, "no PEM here\n").unwrap();
        let e = load(&files, &super::super::provider()).unwrap_err();
        assert!(matches!(e, TlsError::NoCertificate { .. }), "{e:?}");
        assert!(e.to_string().contains("-----BEGIN CERTIFICATE-----"), "{e}");
    }
}
