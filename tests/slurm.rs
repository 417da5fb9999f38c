//! Issue 16, the Slurm path for real: a single-node cluster on this machine (munged, slurmctld,
//! slurmd, started by tests/slurm/single-node.sh in a directory of its own, stopped after), the
//! tournament submitted as deploy/slurm/submit.sh does it (a job array of shards, then the merge
//! job with a dependency), and the merged directory compared with a single-machine run: the same
//! results byte for byte apart from `duration_ms`, the same standings. Skipped with a note when
//! Slurm or munge is missing (apt-get install slurm-wlm munge), unless CI or
//! DURAK_REQUIRE_SYSTEM_TESTS is set; needs root (the daemons run as root).

mod common;

use common::{durak, text, DURAK};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The cluster's programs, all of them, or why not.
fn slurm() -> Result<PathBuf, String> {
    for p in [
        "munged",
        "slurmctld",
        "slurmd",
        "sbatch",
        "scontrol",
        "sinfo",
    ] {
        common::which(p).ok_or_else(|| format!("{p} not found on PATH"))?;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("the test cluster's daemons run as root, and this is not root".into());
    }
    common::which("slurmctld").ok_or_else(|| "slurmctld".into())
}

fn without_timings(results: &str) -> String {
    results
        .lines()
        .map(|l| {
            let at = l.find(",\"duration_ms\":").expect("duration_ms");
            let end = at + 1 + l[at + 1..].find([',', '}']).expect("the field ends");
            format!("{}{}\n", &l[..at], &l[end..])
        })
        .collect()
}

#[test]
fn a_slurm_job_array_of_shards_merges_into_the_single_machine_results() {
    if common::require_with("slurm", "slurm-wlm munge", slurm).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let config = t.join("cup.toml");
    std::fs::write(
        &config,
        "[tournament]\nname = \"slurm-cup\"\ngames = 6\nseed = 16\n\
         [[bot]]\nname = \"random\"\ncommand = \"builtin:random\"\n\
         [[bot]]\nname = \"greedy\"\ncommand = \"builtin:greedy\"\n\
         [[bot]]\nname = \"random2\"\ncommand = \"builtin:random\"\n",
    )
    .unwrap();
    let single = durak(
        &["tournament", "-q", "-c", "cup.toml", "--out", "single"],
        t,
    );
    assert!(single.status.success(), "{}", text(&single.stderr));
    let work = t.join("cluster");
    let out = Command::new("bash")
        .arg(repo().join("tests/slurm/single-node.sh"))
        .arg(&work)
        .arg(DURAK)
        .arg(&config)
        .arg("3")
        .arg("120")
        .env("DURAK_EXE", DURAK)
        .output()
        .expect("bash runs");
    let log = format!("{}\n{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "the cluster run failed:\n{log}");
    assert!(
        log.contains("merge job") && log.contains("COMPLETED"),
        "{log}"
    );
    let merged = work.join("out/merged");
    let read = |d: &Path| std::fs::read_to_string(d.join("results.jsonl")).unwrap();
    assert_eq!(
        without_timings(&read(&merged)),
        without_timings(&read(&t.join("single"))),
        "{log}"
    );
    // Each array task played a shard of its own.
    for i in 1..=3 {
        let shard = work.join(format!("out/shard-{i}-of-3"));
        let toml = std::fs::read_to_string(shard.join("tournament.toml")).unwrap();
        assert!(toml.contains(&format!("shard = \"{i}/3\"")), "{toml}");
        assert!(!read(&shard).is_empty());
    }
    let standings = |d: &Path| {
        let o = durak(&["standings", d.to_str().unwrap(), "--json"], t);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    assert_eq!(standings(&merged), standings(&t.join("single")));
}
