//! Certificates for the HTTPS tests, made with rcgen: a test CA and server certificates it
//! signs (for the names given, valid now or expired), written as PEM files.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use std::path::{Path, PathBuf};

/// A certificate authority of the tests.
pub struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A server certificate and its key, as written.
pub struct ServerFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl Ca {
    pub fn new(name: &str) -> Ca {
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.distinguished_name.push(DnType::CommonName, name);
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let issuer = CertifiedIssuer::self_signed(p, KeyPair::generate().unwrap()).unwrap();
        Ca { issuer }
    }

    /// Its certificate, written to `path` (what a client's `--ca-cert` takes).
    pub fn write(&self, path: &Path) -> PathBuf {
        std::fs::write(path, self.issuer.pem()).unwrap();
        path.to_path_buf()
    }

    /// A server certificate for `names` (host names or IP addresses), expired if `expired`,
    /// and its key: (certificate PEM, key PEM).
    pub fn issue(&self, names: &[&str], expired: bool) -> (String, String) {
        let mut p = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
            .unwrap();
        p.distinguished_name.push(DnType::CommonName, names[0]);
        if expired {
            p.not_before = rcgen::date_time_ymd(2020, 1, 1);
            p.not_after = rcgen::date_time_ymd(2021, 1, 1);
        } else {
            p.not_before = rcgen::date_time_ymd(2024, 1, 1);
            p.not_after = rcgen::date_time_ymd(2200, 1, 1);
        }
        let key = KeyPair::generate().unwrap();
        let cert = p.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    /// A server certificate for `names` written as `dir/cert.pem` and `dir/key.pem` (replaced
    /// if there).
    pub fn write_server(&self, dir: &Path, names: &[&str], expired: bool) -> ServerFiles {
        let (cert, key) = self.issue(names, expired);
        let files = ServerFiles {
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        };
        std::fs::write(&files.key, key).unwrap();
        std::fs::write(&files.cert, cert).unwrap();
        files
    }
}
