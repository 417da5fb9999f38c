//! The configuration's tests: the documented example, the defaults, the flags over the file,
//! and every refusal naming its key and the fix.

use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    let f: ConfigFile = toml::from_str(text).map_err(|e| ConfigError::NotToml {
        path: "serve.toml".into(),
        detail: e.to_string(),
    })?;
    resolve(Some((Path::new("serve.toml"), &f)), &Overrides::default())
}

#[test]
fn defaults_serve_on_loopback_strict_with_house_bots() {
    let c = resolve(None, &Overrides::default()).unwrap();
    assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(c.data_dir, PathBuf::from("durak-data"));
    assert_eq!(c.sandbox, Sandbox::Strict);
    assert_eq!(c.registration, Registration::Invite);
    assert_eq!(c.ladder.house_bots.len(), 2);
    assert_eq!(c.upload.max_archive, 16 * MIB);
    assert!(c.ladder.local_play);
    assert_eq!(c.ladder.lease_ms, 60_000);
}

/// docs/SERVICE.md's example configuration parses, and the limits it calls the defaults
/// are the defaults.
#[test]
fn the_documented_configuration_parses_and_shows_the_default_limits() {
    let doc = include_str!("../../../docs/SERVICE.md");
    let block = doc
        .split("## Configuration")
        .nth(1)
        .and_then(|rest| rest.split("```toml\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("a toml block under ## Configuration");
    let c = parse(block).unwrap_or_else(|e| panic!("{e}\n{block}"));
    let d = resolve(None, &Overrides::default()).unwrap();
    assert_eq!(c.resources, d.resources, "[sandbox] limits");
    assert_eq!(c.build.limits, d.build.limits, "[build] limits");
    assert_eq!(c.build.disk, d.build.disk, "[build] disk");
    assert_eq!(c.upload.max_archive, d.upload.max_archive);
    assert_eq!(c.upload.max_unpacked, d.upload.max_unpacked);
    assert_eq!(c.quota, d.quota, "[quota]");
    assert_eq!(c.rate, d.rate, "[limits] and trusted_proxies");
}

#[test]
fn quotas_limits_and_the_check_queue_from_the_file() {
    let c = parse(
        "trusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\"]\n[quota]\n\
         submissions_per_day = 3\nstorage = \"1M\"\nfailed_keep_days = 0\n[limits]\n\
         auth_burst = 2\nauth_every_s = 60\n[check]\nconcurrency = 3\n",
    )
    .unwrap();
    assert_eq!(c.quota.submissions_per_day, 3);
    assert_eq!(c.quota.storage, MIB);
    assert_eq!(c.quota.failed_keep_days, 0);
    assert_eq!(c.rate.burst, 2);
    assert_eq!(c.rate.trusted_proxies.len(), 2);
    assert_eq!(c.check_concurrency, 3);
    let e = parse("[check]\nconcurrency = 0\n").unwrap_err().to_string();
    assert!(
        e.starts_with("serve.toml: [check] concurrency = 0") && e.contains("fix:"),
        "{e}"
    );
    let e = parse("[quota]\nstorage = \"lots\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("serve.toml") && e.contains("[quota] storage"),
        "{e}"
    );
    let e = parse("trusted_proxies = [\"proxy.example\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("serve.toml: trusted_proxies") && e.contains("fix:"),
        "{e}"
    );
}

#[test]
fn local_play_and_the_lease_from_the_file_and_the_flags() {
    let text = "[ladder]\nlocal_play = false\nlease_s = 5\n";
    let c = parse(text).unwrap();
    assert!(!c.ladder.local_play);
    assert_eq!(c.ladder.lease_ms, 5_000);
    let f: ConfigFile = toml::from_str(text).unwrap();
    let o = Overrides {
        lease_s: Some(2),
        ..Overrides::default()
    };
    let c = resolve(Some((Path::new("serve.toml"), &f)), &o).unwrap();
    assert_eq!(c.ladder.lease_ms, 2_000);
    let e = parse("[ladder]\nlease_s = 0\n").unwrap_err().to_string();
    assert!(e.contains("lease_s = 0") && e.contains("fix:"), "{e}");
}

#[test]
fn the_file_is_read_and_flags_win() {
    let text = "listen = \"127.0.0.1:9000\"\nregistration = \"open\"\n[ladder]\n\
                variant = \"prostoy\"\ntable_size = 3\ndeals = 4\n[upload]\n\
                max_archive = \"1M\"\n[build]\ndisk = 1000\n[sandbox]\nmode = \"default\"\n\
                limits = { memory = \"512M\" }\n";
    let c = parse(text).unwrap();
    assert_eq!(c.listen.port(), 9000);
    assert_eq!(c.ladder.variant, Variant::Prostoy);
    assert_eq!(c.ladder.table_size, 3);
    assert_eq!(c.upload.max_archive, MIB);
    assert_eq!(c.build.disk, 1000);
    assert_eq!(c.resources.memory, Some(512 * MIB));
    let f: ConfigFile = toml::from_str(text).unwrap();
    let o = Overrides {
        listen: Some("127.0.0.1:9001".into()),
        table_size: Some(2),
        sandbox: Some("strict".into()),
        limits: vec!["memory=1G".into()],
        ..Overrides::default()
    };
    let c = resolve(Some((Path::new("serve.toml"), &f)), &o).unwrap();
    assert_eq!(c.listen.port(), 9001);
    assert_eq!(c.ladder.table_size, 2);
    assert_eq!(c.sandbox, Sandbox::Strict);
    assert_eq!(c.resources.memory, Some(1024 * MIB));
}

#[test]
fn tls_from_the_file_and_the_flags_both_or_neither() {
    assert_eq!(resolve(None, &Overrides::default()).unwrap().tls, None);
    let c = parse("[tls]\ncert = \"c.pem\"\nkey = \"k.pem\"\n").unwrap();
    let t = c.tls.unwrap();
    assert_eq!((t.cert, t.key), ("c.pem".into(), "k.pem".into()));
    let f: ConfigFile = toml::from_str("[tls]\ncert = \"c.pem\"\nkey = \"k.pem\"\n").unwrap();
    let o = Overrides {
        tls_cert: Some("new.pem".into()),
        ..Overrides::default()
    };
    let t = resolve(Some((Path::new("serve.toml"), &f)), &o)
        .unwrap()
        .tls
        .unwrap();
    assert_eq!((t.cert, t.key), ("new.pem".into(), "k.pem".into()));
    let e = parse("[tls]\ncert = \"c.pem\"\n").unwrap_err().to_string();
    assert!(
        e.starts_with("serve.toml: [tls] cert") && e.contains("[tls] key") && e.contains("fix:"),
        "{e}"
    );
    let e = parse("[tls]\nkey = \"k.pem\"\n").unwrap_err().to_string();
    assert!(
        e.contains("without a certificate") && e.contains("fix:"),
        "{e}"
    );
    let e = resolve(
        None,
        &Overrides {
            tls_key: Some("k.pem".into()),
            ..Overrides::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--tls-cert"), "{e}");
    let e: Result<ConfigFile, _> = toml::from_str("[tls]\ncertificate = \"c.pem\"\n");
    assert!(e.unwrap_err().to_string().contains("certificate"));
}

#[test]
fn bad_values_name_the_key_and_the_fix() {
    let e = parse("[ladder]\ntable_size = 7\n").unwrap_err().to_string();
    assert!(e.contains("table_size = 7") && e.contains("fix:"), "{e}");
    let e = parse("listen = \"nowhere\"\n").unwrap_err().to_string();
    assert!(e.contains("listen") && e.contains("fix:"), "{e}");
    let e = parse("[ladder]\nhouse_bots = [\"python3 x.py\"]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("house_bots") && e.contains("fix:"), "{e}");
    let e = parse("[upload]\nmax_archive = \"lots\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("max_archive"), "{e}");
    let e: Result<ConfigFile, _> = toml::from_str("[ladder]\nspeed = 1\n");
    assert!(e.unwrap_err().to_string().contains("speed"));
}
