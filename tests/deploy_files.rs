//! Issue 16: the deployment files of deploy/kubernetes/ checked for shape — they parse as
//! Kubernetes objects of the right kind, and every `durak` command in them names a real
//! subcommand and real flags of this binary — and the shell scripts of the shard and merge
//! Jobs run here, by `sh`, as the pods would run them (JOB_COMPLETION_INDEX 0 to N-1, /config
//! and /data mapped to a directory of the test): their merged results are a single run's. No
//! Kubernetes cluster is started (docs/SCALING.md says so). The worker Deployment's `durak
//! worker` command is checked against the binary like the others.

mod common;

use common::{durak, text, DURAK};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kube(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("deploy/kubernetes")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn container(v: &Value) -> &Value {
    &v["spec"]["template"]["spec"]["containers"][0]
}

fn env(c: &Value, name: &str) -> String {
    c["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["value"].as_str())
        .unwrap_or_else(|| panic!("env {name} in {c}"))
        .to_string()
}

/// The `durak` commands of a container's shell script, as words.
fn durak_commands(script: &str) -> Vec<Vec<String>> {
    script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("exec durak "))
        .map(|rest| shell_words::split(rest).expect("shell words"))
        .collect()
}

/// `durak SUB ...flags` names a subcommand of this binary and flags it takes.
fn assert_real(words: &[String]) {
    let sub = &words[0];
    let help = durak(&[sub, "--help"], Path::new("/"));
    assert!(help.status.success(), "durak {sub}: {}", text(&help.stderr));
    let help = text(&help.stdout);
    for w in words.iter().filter(|w| w.starts_with("--")) {
        assert!(
            help.contains(&format!("{w} ")) || help.contains(&format!("{w}\n")),
            "durak {sub} has no {w}:\n{help}"
        );
    }
}

#[test]
fn the_kubernetes_files_parse_and_name_real_commands() {
    let job = kube("shards-job.yaml");
    assert_eq!(
        (job["apiVersion"].as_str(), job["kind"].as_str()),
        (Some("batch/v1"), Some("Job"))
    );
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let c = container(&job);
    let shards: u64 = env(c, "SHARDS").parse().unwrap();
    assert_eq!(
        job["spec"]["completions"].as_u64(),
        Some(shards),
        "one pod per shard"
    );
    assert!(job["spec"]["parallelism"].as_u64().unwrap() <= shards);
    let script = c["args"][0].as_str().unwrap();
    assert!(script.contains("JOB_COMPLETION_INDEX"), "{script}");
    let cmds = durak_commands(script);
    assert_eq!(cmds.len(), 2, "{script}");
    assert!(cmds
        .iter()
        .any(|w| w[0] == "tournament" && w.contains(&"--resume".to_string())));
    assert!(cmds.iter().any(|w| w.contains(&"--shard".to_string())));
    cmds.iter().for_each(|w| assert_real(w));

    let merge = kube("merge-job.yaml");
    assert_eq!(merge["kind"], "Job");
    let m = container(&merge);
    assert_eq!(
        env(m, "SHARDS"),
        shards.to_string(),
        "the merge expects every shard"
    );
    let cmds = durak_commands(m["args"][0].as_str().unwrap());
    assert_eq!(cmds.len(), 1);
    assert_eq!(cmds[0][0], "merge");
    assert_real(&cmds[0]);
    // The shards and the merge share the volume.
    let claim = |v: &Value| {
        v["spec"]["template"]["spec"]["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|v| {
                v["persistentVolumeClaim"]["claimName"]
                    .as_str()
                    .map(String::from)
            })
    };
    let pvc = kube("data-pvc.yaml");
    assert_eq!(pvc["kind"], "PersistentVolumeClaim");
    assert_eq!(
        claim(&job),
        pvc["metadata"]["name"].as_str().map(String::from)
    );
    assert_eq!(claim(&merge), claim(&job));
    assert_eq!(pvc["spec"]["accessModes"][0], "ReadWriteMany");

    let workers = kube("workers-deployment.yaml");
    assert_eq!(
        (workers["apiVersion"].as_str(), workers["kind"].as_str()),
        (Some("apps/v1"), Some("Deployment"))
    );
    let w = container(&workers);
    let cmd: Vec<&str> = w["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(cmd[..3], ["durak", "worker", "--server"]);
    assert_eq!(cmd[4], "--token");
    assert!(
        w["env"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["valueFrom"]["secretKeyRef"]["key"] == "token"),
        "the token comes from a Secret"
    );
    let words: Vec<String> = cmd[1..].iter().map(|s| s.to_string()).collect();
    assert!(durak(&["worker", "--help"], Path::new("/"))
        .status
        .success());
    assert_real(&words);
    assert!(
        !text(
            &std::fs::read(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("deploy/kubernetes/workers-deployment.yaml")
            )
            .unwrap()
        )
        .contains("NOT RUNNABLE"),
        "the Deployment runs now"
    );
}

/// The Jobs' scripts as the pods run them: each index its shard, then the merge; the merged
/// results are those of one machine (timings aside).
#[test]
fn the_job_scripts_play_every_shard_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (config, data) = (t.join("config"), t.join("data"));
    std::fs::create_dir_all(&config).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        config.join("tournament.toml"),
        "[tournament]\nname = \"k8s\"\ngames = 4\nseed = 8\n\
         [[bot]]\nname = \"random\"\ncommand = \"builtin:random\"\n\
         [[bot]]\nname = \"greedy\"\ncommand = \"builtin:greedy\"\n",
    )
    .unwrap();
    let local = |s: &str| {
        s.replace("/config/", &format!("{}/", config.display()))
            .replace("/data/", &format!("{}/", data.display()))
            .replace("/data\n", &format!("{}\n", data.display()))
    };
    let path = format!(
        "{}:{}",
        Path::new(DURAK).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let job = kube("shards-job.yaml");
    let c = container(&job);
    let shards: u64 = env(c, "SHARDS").parse().unwrap();
    let run = |script: &str, index: Option<u64>| {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(local(script))
            .env("PATH", &path)
            .env("SHARDS", shards.to_string())
            .env("DURAK_EXE", DURAK)
            .current_dir(t);
        if let Some(i) = index {
            cmd.env("JOB_COMPLETION_INDEX", i.to_string());
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let script = c["args"][0].as_str().unwrap();
    for i in 0..shards {
        run(script, Some(i));
    }
    // A pod restarted after its shard finished resumes it: nothing more to play.
    run(script, Some(0));
    let merge = kube("merge-job.yaml");
    let standings = run(container(&merge)["args"][0].as_str().unwrap(), None);
    assert!(standings.contains("k8s"), "{standings}");
    let single = durak(
        &[
            "tournament",
            "-q",
            "-c",
            config.join("tournament.toml").to_str().unwrap(),
            "--out",
            "single",
        ],
        t,
    );
    assert!(single.status.success(), "{}", text(&single.stderr));
    let read = |d: &Path| -> Vec<Value> {
        std::fs::read_to_string(d.join("results.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("duration_ms");
                v
            })
            .collect()
    };
    assert_eq!(read(&data.join("merged")), read(&t.join("single")));
}

/// The Slurm scripts' `durak` commands name real subcommands and flags too (tests/slurm.rs runs
/// them on a real single-node cluster where Slurm is installed).
#[test]
fn the_slurm_scripts_name_real_commands() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm");
    let mut seen = Vec::new();
    for name in ["shards.sbatch", "merge.sbatch"] {
        let script = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(script.starts_with("#!/usr/bin/env bash\n"), "{name}");
        for l in script.lines() {
            let Some(rest) = l.trim().strip_prefix("exec \"$DURAK\" ") else {
                continue;
            };
            // A command continued on the next line ends with a backslash.
            let full = if rest.ends_with('\\') {
                let next = script.lines().skip_while(|x| *x != l).nth(1).unwrap();
                format!("{} {}", rest.trim_end_matches('\\'), next.trim())
            } else {
                rest.to_string()
            };
            let words = shell_words::split(&full).unwrap();
            assert_real(&words);
            seen.push(words[0].clone());
        }
    }
    seen.sort();
    assert_eq!(seen, ["merge", "tournament", "tournament"]);
    let shards = std::fs::read_to_string(dir.join("shards.sbatch")).unwrap();
    assert!(shards.contains("SLURM_ARRAY_TASK_ID + 1") && shards.contains("--shard \"$I/$N\""));
    let submit = std::fs::read_to_string(dir.join("submit.sh")).unwrap();
    assert!(submit.contains("--array=0-$((N - 1))") && submit.contains("--dependency=afterok:"));
}

fn deploy_file(path: &str) -> (PathBuf, String) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(path);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (p, text)
}

/// The settings of a systemd unit that are set (not in comments).
fn unit_settings(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with('['))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// Issue 22: deploy/systemd/durak-serve.service passes `systemd-analyze verify` (with its
/// ExecStart pointed at this binary) without a warning, runs a real command, and keeps out the
/// settings that would stop bubblewrap (the strict sandbox) from working.
#[test]
fn the_systemd_unit_verifies_and_leaves_bubblewrap_its_namespaces() {
    let (_, unit) = deploy_file("systemd/durak-serve.service");
    let set = unit_settings(&unit);
    let get = |k: &str| {
        set.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    for breaks_bwrap in [
        "PrivateUsers",
        "RestrictNamespaces",
        "ProtectKernelTunables",
        "ProtectKernelLogs",
        "ProtectProc",
        "ProcSubset",
        "MemoryDenyWriteExecute",
        "SystemCallFilter",
    ] {
        assert_eq!(get(breaks_bwrap), None, "{breaks_bwrap} is set");
    }
    assert_eq!(get("ProtectSystem"), Some("strict"));
    assert_eq!(get("ReadWritePaths"), Some("/var/lib/durak"));
    assert_eq!(get("NoNewPrivileges"), Some("yes"));
    let families = get("RestrictAddressFamilies").unwrap();
    assert!(
        families.contains("AF_NETLINK"),
        "bwrap needs netlink: {families}"
    );
    let exec = get("ExecStart").unwrap();
    let words = shell_words::split(exec).unwrap();
    assert_eq!(words[0], "/usr/local/bin/durak");
    assert_real(&words[1..]);

    let Some(analyze) = common::require("systemd-analyze", "systemd") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("durak-serve.service");
    std::fs::write(&copy, unit.replace("/usr/local/bin/durak", DURAK)).unwrap();
    let out = Command::new(analyze)
        .args(["verify", "--man=no"])
        .arg(&copy)
        .output()
        .unwrap();
    let e = text(&out.stderr);
    assert!(out.status.success(), "{e}");
    assert!(
        !e.contains("durak-serve.service"),
        "systemd-analyze has something to say about the unit:\n{e}"
    );
}

/// Issue 22: deploy/nginx/durak.conf lets an upload of the server's archive limit through (and
/// a worker's results), does not buffer the live leaderboard and sets the proxy headers. (It
/// runs in front of a server in tests/serve_proxy.rs.)
#[test]
fn the_nginx_configuration_fits_the_server_s_limits_and_streams_the_events() {
    let (_, conf) = deploy_file("nginx/durak.conf");
    let lines: Vec<&str> = conf
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .collect();
    let sizes: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("client_max_body_size "))
        .map(|v| {
            v.trim_end_matches(';')
                .trim_end_matches('m')
                .parse::<u64>()
                .unwrap()
                << 20
        })
        .collect();
    let defaults = durak_service::config::resolve(None, &Default::default()).unwrap();
    let archive = defaults.upload.max_archive;
    assert!(
        sizes[0] >= archive && sizes[0] <= archive + (1 << 20),
        "client_max_body_size {} for an archive limit of {archive}",
        sizes[0]
    );
    assert_eq!(
        sizes[1],
        durak_service::http::worker_api::MAX_RESULTS_BODY as u64,
        "/api/worker/ takes a worker's results"
    );
    let events = conf
        .split("location = /api/leaderboard/events {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("a location for the live leaderboard");
    assert!(events.contains("proxy_buffering off;"), "{events}");
    for header in ["X-Forwarded-For", "X-Forwarded-Proto", "Host"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("proxy_set_header {header} "))),
            "{header}"
        );
    }
}
