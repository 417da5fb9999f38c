use super::*;

#[test]
fn mountinfo_and_own_cgroups_parse() {
    let mi = "30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
              31 25 0:27 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n\
              32 25 0:28 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n\
              33 25 0:29 / /mnt/with\\040space rw shared:1 - tmpfs tmpfs rw\n";
    let m = parse_mountinfo(mi);
    assert_eq!(m.len(), 4);
    assert_eq!(m[0].fstype, "cgroup");
    assert!(m[0].options.contains(&"memory".to_string()));
    assert_eq!(m[2].fstype, "cgroup2");
    assert_eq!(m[3].point, PathBuf::from("/mnt/with space"));
    let own = parse_own_cgroups("4:memory:/a/b\n8:pids:/\n1:cpu,cpuacct:/x\n0::/user.slice\n");
    assert_eq!(own[0], (4, vec!["memory".to_string()], "/a/b".to_string()));
    assert_eq!(own[2].1, vec!["cpu".to_string(), "cpuacct".to_string()]);
    assert_eq!(own[3], (0, vec![], "/user.slice".to_string()));
    assert_eq!(
        m[0].join("/a/b"),
        PathBuf::from("/sys/fs/cgroup/memory/a/b")
    );
    assert_eq!(m[1].join("/"), PathBuf::from("/sys/fs/cgroup/pids"));
}

/// cgroup v2 on a fake tree (this machine's v2 has no controllers): the base is the
/// referee's cgroup's parent, `durak-PID` gets the controllers, a bot's cgroup its limits,
/// and what a referee that is gone left is removed.
#[test]
fn v2_layout_on_a_fake_tree() {
    let root = tempfile::tempdir().unwrap();
    let own = root.path().join("user.slice/session-1.scope");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("cgroup.controllers"), "cpu cpuset memory pids\n").unwrap();
    // What the kernel shows in `durak-77` once cpuset is enabled above it.
    let base = root.path().join("user.slice/durak-77");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::write(base.join("cpuset.cpus.effective"), "0-3\n").unwrap();
    // What a referee that is gone left (its pid cannot be a running process's).
    let stale = root.path().join("user.slice/durak-4194999/bot-3");
    std::fs::create_dir_all(&stale).unwrap();
    let mi = format!(
        "32 25 0:28 / {} rw - cgroup2 cgroup2 rw\n",
        root.path().display()
    );
    // Plain directories cannot be removed while they hold files; a real cgroupfs can.
    let s = set_up(&mi, "0::/user.slice/session-1.scope\n", 77).unwrap();
    assert_eq!(s.version, Version::V2);
    assert_eq!(s.memory, root.path().join("user.slice/durak-77"));
    assert_eq!(
        std::fs::read_to_string(s.memory.join("cgroup.subtree_control")).unwrap(),
        "+memory +pids +cpu +cpuset"
    );
    assert!(s.cpu_notes.is_empty(), "{:?}", s.cpu_notes);
    assert_eq!(s.cpuset.as_ref().unwrap().cpus, vec![0, 1, 2, 3]);
    assert_eq!(s.cpu.as_ref(), Some(&s.memory));
    assert!(!stale.exists(), "the stale bot cgroup is removed");
    std::fs::write(s.memory.join("bot-probe"), "").unwrap();
    std::fs::remove_file(s.memory.join("bot-probe")).unwrap();
    let cg = BotCgroup::create(&s, Some(64 << 20), Some(32), &[1]).unwrap();
    let d = cg.memory_dir.clone();
    assert_eq!(
        std::fs::read_to_string(d.join("memory.max")).unwrap(),
        "67108864"
    );
    assert_eq!(std::fs::read_to_string(d.join("pids.max")).unwrap(), "32");
    // A table on CPU 1: the bot's cpuset holds CPU 1 only; its weight is every bot's.
    assert_eq!(std::fs::read_to_string(d.join("cpuset.cpus")).unwrap(), "1");
    assert_eq!(cg.cpus, Some(vec![1]));
    assert_eq!(
        std::fs::read_to_string(d.join("cpu.weight")).unwrap(),
        "100"
    );
    // A bot whose thread may run anywhere gets no cpuset of its own.
    let anywhere = BotCgroup::create(&s, None, None, &[0, 1, 2, 3]).unwrap();
    assert!(!anywhere.memory_dir.join("cpuset.cpus").exists());
    assert_eq!(anywhere.cpus, None);
    assert_eq!(
        cg.procs_files()[0].to_str().unwrap(),
        d.join("cgroup.procs").to_str().unwrap()
    );
    std::fs::write(
        d.join("memory.events"),
        "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n",
    )
    .unwrap();
    assert_eq!(cg.oom_kills(), 1);
    // Without the controllers, v2 is refused with the reason.
    // Without cpu and cpuset, bots get memory and pids, and the notes say what is missing.
    std::fs::write(own.join("cgroup.controllers"), "memory pids\n").unwrap();
    let s = set_up(&mi, "0::/user.slice/session-1.scope\n", 79).unwrap();
    assert_eq!(
        std::fs::read_to_string(s.memory.join("cgroup.subtree_control")).unwrap(),
        "+memory +pids"
    );
    assert_eq!((s.cpuset.as_ref(), s.cpu.as_ref()), (None, None));
    let notes = s.cpu_notes.join("; ");
    assert!(
        notes.contains("the cpuset controller is not available"),
        "{notes}"
    );
    assert!(
        notes.contains("the cpu controller is not available"),
        "{notes}"
    );
    std::fs::write(own.join("cgroup.controllers"), "cpu\n").unwrap();
    let e = set_up(&mi, "0::/user.slice/session-1.scope\n", 78)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("cgroup v2: the memory controller is not available in "),
        "{e}"
    );
}

/// cgroup v1 for real where it can be used (as root on this machine): a bot's cgroup gets
/// its limits, its table's CPU and its weight, and goes when dropped, in every hierarchy.
#[test]
fn v1_or_v2_for_real_when_available() {
    let Ok(s) = support() else {
        eprintln!("note: no cgroup for bots here: {:?}", support());
        return;
    };
    let cpus = crate::affinity::allowed_cpus();
    let last = *cpus.last().unwrap();
    let cg = BotCgroup::create(s, Some(100 << 20), Some(10), &[last]).unwrap();
    let all: Vec<PathBuf> = std::iter::once(cg.memory_dir.clone())
        .chain(cg.pids_dir.clone())
        .chain(cg.cpuset_dir.clone())
        .chain(cg.cpu_dir.clone())
        .collect();
    match &s.cpuset {
        Some(base) if base.cpus.len() > 1 => {
            assert_eq!(cg.cpus, Some(vec![last]));
            let dir = cg.cpuset_dir.as_ref().unwrap_or(&cg.memory_dir);
            let set = std::fs::read_to_string(dir.join("cpuset.cpus")).unwrap();
            assert_eq!(set.trim(), last.to_string());
        }
        _ => eprintln!("note: no cpuset per bot here: {:?}", s.cpu_notes),
    }
    if s.cpu.is_some() {
        let (dir, file, value) = match s.version {
            Version::V1 => (cg.cpu_dir.clone().unwrap(), "cpu.shares", cpu::V1_SHARES),
            Version::V2 => (cg.memory_dir.clone(), "cpu.weight", cpu::V2_WEIGHT),
        };
        let v = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(v.trim(), value);
    }
    assert_eq!(cg.procs_files().len(), all.len());
    let dir = cg.memory_dir.clone();
    let file = match s.version {
        Version::V1 => "memory.limit_in_bytes",
        Version::V2 => "memory.max",
    };
    let v: u64 = std::fs::read_to_string(dir.join(file))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(v, 100 << 20);
    assert_eq!(cg.oom_kills(), 0);
    drop(cg);
    for d in all {
        assert!(!d.exists(), "{} removed", d.display());
    }
}

/// For real where cgroups can be used: what a referee that is gone left in every hierarchy
/// bots use (memory, pids, cpuset, cpu) is removed by the next referee's set-up.
#[test]
fn stale_bot_cgroups_are_swept_in_every_hierarchy() {
    let Ok(s) = support() else {
        eprintln!("note: no cgroup for bots here: {:?}", support());
        return;
    };
    let bases: Vec<PathBuf> = [Some(&s.memory), Some(&s.pids)]
        .into_iter()
        .chain([s.cpuset.as_ref().map(|c| &c.dir), s.cpu.as_ref()])
        .flatten()
        .cloned()
        .collect();
    // Above pid_max (4194304 at most): no process has this pid.
    let stale: Vec<PathBuf> = bases
        .iter()
        .map(|b| b.parent().unwrap().join("durak-4194999/bot-0"))
        .collect();
    for d in &stale {
        std::fs::create_dir_all(d).unwrap();
    }
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    let other = set_up(&mountinfo, &own, 4194998).unwrap();
    for d in &stale {
        assert!(!d.parent().unwrap().exists(), "{} removed", d.display());
    }
    let made = [Some(&other.memory), Some(&other.pids)]
        .into_iter()
        .chain([other.cpuset.as_ref().map(|c| &c.dir), other.cpu.as_ref()])
        .flatten();
    for d in made {
        let _ = std::fs::remove_dir(d);
    }
}
