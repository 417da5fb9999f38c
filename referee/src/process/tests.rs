//! The bot process's unit tests: what goes out, what comes back, what the fast path asks of the
//! kernel.

use super::*;
use crate::clock;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Events are queued and go out with the next request, in order; a long queue goes out by
/// itself before it could fill the pipe.
#[test]
fn queued_lines_go_out_with_the_next_send_in_order() {
    runtime().block_on(async {
        let cmd = BotCommand::parse("cat").unwrap();
        let mut p = BotProcess::spawn(&cmd, 1 << 20, 1024).unwrap();
        let limit = Duration::from_secs(5);
        p.send_later(&serde_json::json!({"n": 1}), limit)
            .await
            .unwrap();
        p.send_later(&serde_json::json!({"n": 2}), limit)
            .await
            .unwrap();
        // Nothing was written yet: `cat` has nothing to echo.
        assert!(matches!(
            p.recv(Duration::from_millis(300)).await,
            Err(IoFault::Timeout)
        ));
        p.send(&serde_json::json!({"n": 3}), limit).await.unwrap();
        for n in 1..=3 {
            let (line, _) = p.recv(limit).await.unwrap();
            assert_eq!(&line[..], format!("{{\"n\":{n}}}").as_bytes());
        }
        // Enough queued lines are written without a send.
        let big = "x".repeat(1000);
        let mut queued = 0;
        while queued < OUTBOX_FLUSH {
            p.send_later(&big, limit).await.unwrap();
            queued += big.len() + 3;
        }
        let (line, _) = p.recv(limit).await.unwrap();
        assert_eq!(&line[..], format!("\"{big}\"").as_bytes());
        p.kill().await;
    });
}

/// The decision clock stays off the fast path: an answer within the first sample reads no
/// accounting at all (not even a baseline); one past it is accounted.
#[test]
fn a_quick_answer_reads_no_accounting_and_a_slow_one_does() {
    runtime().block_on(async {
        let cmd =
            BotCommand::parse("sh -c 'read a; echo quick; read b; sleep 0.05; echo slow'").unwrap();
        let mut p = BotProcess::spawn(&cmd, 1 << 20, 1024).unwrap();
        let limit = Duration::from_secs(5);
        p.send_raw(b"1\n", limit).await.unwrap();
        let (line, time) = p.answer(limit).await.unwrap();
        assert_eq!(&line[..], b"quick");
        // `sh` answers a line within 5 ms unless the machine is very busy: then it is
        // accounted like any slow answer, and only the check below can be made.
        if time.wall < clock::FIRST_SAMPLE {
            assert_eq!((time.cpu, time.wait), (None, None));
            let tracker = p.tracker.as_ref().expect("a tracker for a bot");
            assert!(!tracker.has_read(), "a quick answer read the bot's threads");
        }
        p.send_raw(b"2\n", limit).await.unwrap();
        let (line, time) = p.answer(limit).await.unwrap();
        assert_eq!(&line[..], b"slow");
        assert!(time.wall >= Duration::from_millis(50), "{time:?}");
        assert!(time.cpu.is_some() && time.wait.is_some(), "{time:?}");
        assert!(p.tracker.as_ref().unwrap().has_read());
        p.kill().await;
    });
}

/// Ask `p` requests 1 to 20 (each line its id, each marked on stderr) and check each answer
/// echoes its id.
async fn ask_ids_1_to_20(p: &mut BotProcess, limit: Duration) {
    for id in 1..=20u64 {
        p.mark_stderr(StderrAt::Request(id)).await;
        p.send_raw(format!("{id}\n").as_bytes(), limit)
            .await
            .unwrap();
        let (line, _) = p.answer(limit).await.unwrap();
        assert_eq!(&line[..], id.to_string().as_bytes());
    }
}

/// The transport's fast path asks the kernel for little: for a bot quiet on stderr, at most
/// `polls_per_write` looks into its stderr pipe per request, and never the supervisor's status
/// while its pidfd is quiet. What the bot writes on stderr before each answer still goes with
/// that request, and a killed supervisor is still seen.
async fn few_system_calls_per_decision(polls_per_write: u64) {
    let limit = Duration::from_secs(5);
    // A bot silent on stderr.
    let mut p = BotProcess::spawn(&BotCommand::parse("cat").unwrap(), 1 << 20, 1024).unwrap();
    let (polls, checks) = (p.stderr.polls, p.status_checks);
    ask_ids_1_to_20(&mut p, limit).await;
    assert_eq!(
        p.stderr.polls - polls,
        20 * polls_per_write,
        "looks into a quiet stderr"
    );
    assert_eq!(
        p.status_checks - checks,
        0,
        "no wait4 while the supervisor lives"
    );
    p.kill().await;
    // A bot that writes on stderr before each answer.
    let cmd =
        BotCommand::parse("sh -c 'while read l; do echo \"e$l\" >&2; echo \"$l\"; done'").unwrap();
    let mut p = BotProcess::spawn(&cmd, 1 << 20, 1 << 16).unwrap();
    ask_ids_1_to_20(&mut p, limit).await;
    p.mark_stderr(StderrAt::End).await;
    p.send_raw(b"end\n", limit).await.unwrap();
    p.recv(limit).await.unwrap();
    // Each request's stderr is its own (a mark settles what came before it).
    let mut want: Vec<(StderrAt, String)> = (1..=20u64)
        .map(|id| (StderrAt::Request(id), format!("e{id}\n")))
        .collect();
    want.push((StderrAt::End, "eend\n".into()));
    assert_eq!(stderr_by_mark(&mut p).await, want);
    // The supervisor killed (not by the referee): the bot dies with it, and the first
    // answer after the runtime saw the supervisor's pidfd says who killed it (answers
    // may still come while the supervisor is dying, as with a status asked for at once;
    // a loaded machine can take milliseconds to let it die).
    let sup = rustix::process::Pid::from_raw(p.pgid.unwrap()).unwrap();
    rustix::process::kill_process(sup, rustix::process::Signal::KILL).unwrap();
    let mut answered = 0;
    let fault = loop {
        let r = match p.send_raw(b"x\n", limit).await {
            Ok(()) => p.answer(limit).await.map(|_| ()),
            Err(f) => Err(f),
        };
        match r {
            Ok(()) if answered < 100 => answered += 1,
            r => break r,
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    match fault {
        Err(IoFault::Crash(d)) => assert!(d.contains("killed its supervisor"), "{d}"),
        r => panic!("{r:?} after {answered} answers"),
    }
    p.kill().await;
}

/// The stderr taken from `p`, its chunks joined by mark.
async fn stderr_by_mark(p: &mut BotProcess) -> Vec<(StderrAt, String)> {
    let mut by_at: Vec<(StderrAt, String)> = Vec::new();
    for c in p.take_stderr().await {
        match by_at.last_mut() {
            Some((at, text)) if *at == c.at => text.push_str(&c.text_lossy()),
            _ => by_at.push((c.at, c.text_lossy())),
        }
    }
    by_at
}

/// On a table's own thread (a current-thread runtime: `crate::direct`), each write looks into
/// the bot's stderr once (a `poll`: the runtime may not have run since the last answer).
#[test]
fn on_the_table_thread_a_decision_polls_a_quiet_stderr_once_and_never_asks_for_a_status() {
    runtime().block_on(async {
        assert!(crate::direct::available());
        few_system_calls_per_decision(1).await;
    });
}

/// Through a multi-thread runtime a decision never looks into the stderr pipe of a bot quiet
/// on it: the drain task's readiness says nothing came.
#[test]
fn through_the_runtime_a_decision_never_polls_a_quiet_stderr_nor_asks_for_a_status() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            assert!(!crate::direct::available());
            few_system_calls_per_decision(0).await;
        });
}

/// On the table's thread, what a bot writes on stderr after its answer, while the referee
/// waits for another bot, is read during that wait and kept with the request it answered; a
/// bot's stderr written before its answer goes with that request, however the answer was
/// read.
#[test]
fn stderr_written_after_an_answer_stays_with_its_request_on_the_table_thread() {
    runtime().block_on(async {
        let limit = Duration::from_secs(5);
        // a answers at once, then writes on stderr and leaves a mark in `dir`; b answers once
        // it finds a's mark: a's late line is written while the referee waits for b.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let late = BotCommand::parse(&format!(
            "sh -c 'while read l; do echo \"$l\"; sleep 0.01; echo \"late$l\" >&2; touch {d}/a$l; done'"
        ))
        .unwrap();
        let slow = BotCommand::parse(&format!(
            "sh -c 'while read l; do while [ ! -e {d}/a$((l-1)) ]; do sleep 0.005; done; echo \"$l\"; done'"
        ))
        .unwrap();
        let mut a = BotProcess::spawn(&late, 1 << 20, 1 << 16).unwrap();
        let mut b = BotProcess::spawn(&slow, 1 << 20, 1 << 16).unwrap();
        for id in [1u64, 3, 5] {
            a.mark_stderr(StderrAt::Request(id)).await;
            a.send_raw(format!("{id}\n").as_bytes(), limit).await.unwrap();
            a.answer(limit).await.unwrap();
            // While b waits for a's mark, a writes its late line.
            b.mark_stderr(StderrAt::Request(id + 1)).await;
            b.send_raw(format!("{}\n", id + 1).as_bytes(), limit)
                .await
                .unwrap();
            b.answer(limit).await.unwrap();
        }
        a.mark_stderr(StderrAt::End).await;
        a.send_raw(b"end\n", limit).await.unwrap();
        a.recv(limit).await.unwrap();
        let want: Vec<(StderrAt, String)> = [1u64, 3, 5]
            .iter()
            .map(|&id| (StderrAt::Request(id), format!("late{id}\n")))
            .collect();
        let mut got = stderr_by_mark(&mut a).await;
        // The late line after "end" may or may not have come yet.
        got.retain(|(at, _)| *at != StderrAt::End);
        assert_eq!(got, want);
        a.kill().await;
        b.kill().await;
    });
}

/// A bot that has closed its input: queueing reports it as soon as a write fails, and every
/// later queued line at once, like a send.
#[test]
fn queueing_for_a_bot_that_closed_its_input_is_a_fault() {
    runtime().block_on(async {
        let cmd = BotCommand::parse("sh -c 'exec 0<&-; echo closed; sleep 5'").unwrap();
        let mut p = BotProcess::spawn(&cmd, 1 << 20, 1024).unwrap();
        let limit = Duration::from_secs(10);
        // Wait until the bot closed its input. The supervisor may still hold the pipe for
        // a moment after that (it closes its copies after the fork), so the first writes
        // can still succeed; a write fails once nobody can read.
        let (line, _) = p.recv(limit).await.unwrap();
        assert_eq!(&line[..], b"closed");
        let line = "y".repeat(OUTBOX_FLUSH);
        let mut r = Ok(());
        for _ in 0..200 {
            r = p.send_later(&line, limit).await;
            if r.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(matches!(r, Err(IoFault::Closed)), "{r:?}");
        let r = p.send_later(&1, limit).await;
        assert!(matches!(r, Err(IoFault::Closed)), "{r:?}");
        p.kill().await;
    });
}

// Hostile bots on both paths: every scenario below runs on a table's own thread (a
// current-thread runtime, where answers are read by `crate::direct`) and through a multi-thread
// runtime (never that path), and must come out the same.

fn multi_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// What a bot gave to each request, as text, up to and with its first fault.
type Answers = Vec<Result<String, IoFault>>;

/// Run `scenario` on a table's own thread and through the runtime: both must give the same
/// answers and faults. Returns them, with the decisions read on the table's own thread.
fn on_both_paths<F, Fut>(scenario: F) -> (Answers, u64)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = (Answers, u64)>,
{
    let (direct, taken) = runtime().block_on(async {
        assert!(crate::direct::available());
        scenario().await
    });
    let (through, none) = multi_thread().block_on(async {
        assert!(!crate::direct::available());
        scenario().await
    });
    assert_eq!(none, 0, "the direct path taken on a multi-thread runtime");
    assert_eq!(
        direct, through,
        "the table's own thread and the runtime disagree"
    );
    (direct, taken)
}

/// Ask `script` (run by `sh -c`) `requests` times ("1", "2", ...), each answer within `limit`,
/// with lines of at most `max_line` bytes; stop at the first fault.
async fn ask(script: &str, max_line: usize, requests: u64, limit: Duration) -> (Answers, u64) {
    let cmd = BotCommand::parse(&format!("sh -c '{script}'")).unwrap();
    let mut p = BotProcess::spawn(&cmd, max_line, 1024).unwrap();
    let got = ask_bot(&mut p, requests, limit).await;
    let taken = p.direct_answers;
    p.kill().await;
    (got, taken)
}

async fn ask_bot(p: &mut BotProcess, requests: u64, limit: Duration) -> Answers {
    let mut got = Vec::new();
    for id in 1..=requests {
        let r = match p.send_raw(format!("{id}\n").as_bytes(), limit).await {
            Ok(()) => p
                .answer(limit)
                .await
                .map(|(line, _)| String::from_utf8_lossy(&line).into_owned()),
            Err(f) => Err(f),
        };
        let fault = r.is_err();
        got.push(r);
        if fault {
            break;
        }
    }
    got
}

fn oks(lines: &[&str]) -> Answers {
    lines.iter().map(|l| Ok(l.to_string())).collect()
}

/// An answer written in pieces, with pauses of a few milliseconds between them (within the
/// first sample, or around it), is one line; so is one whose pause passes the first sample
/// (the runtime's path ends the line the table's thread began).
#[test]
fn an_answer_written_in_pieces_is_one_line_on_both_paths() {
    let limit = Duration::from_secs(5);
    let script =
        r#"while read l; do printf "an"; sleep 0.002; printf "sw"; sleep 0.002; echo "er$l"; done"#;
    let (got, _) = on_both_paths(|| ask(script, 100, 4, limit));
    assert_eq!(got, oks(&["answer1", "answer2", "answer3", "answer4"]));
    // Three writes with no pause but the shell's: read on the table's thread, mostly.
    let script = r#"while read l; do printf "an"; printf "sw"; echo "er$l"; done"#;
    let (got, _) = on_both_paths(|| ask(script, 100, 4, limit));
    assert_eq!(got, oks(&["answer1", "answer2", "answer3", "answer4"]));
    // The pause passes the first sample: the table's thread gives up with half a line read.
    let script = r#"while read l; do printf "ans"; sleep 0.03; printf "wer$l\n"; done"#;
    let (got, _) = on_both_paths(|| ask(script, 100, 3, limit));
    assert_eq!(got, oks(&["answer1", "answer2", "answer3"]));
    // The rest of a line and the whole next one in one write, after a pause.
    let script = r#"read l; printf "a"; sleep 0.004; printf "1\na2\n"; read l; read l; echo a3"#;
    let (got, taken) = on_both_paths(|| ask(script, 100, 3, limit));
    assert_eq!(got, oks(&["a1", "a2", "a3"]));
    // The second answer was in the reader already: given on the table's thread at once.
    assert!(taken >= 1, "{taken}");
}

/// Two answers written at once: the second is kept for the next request (as the old
/// `FramedRead` kept it), not lost, whichever path read it; an extra line written after the
/// answer was taken is also the next request's answer.
#[test]
fn a_second_answer_written_at_once_is_the_next_requests_answer() {
    let limit = Duration::from_secs(5);
    let script = r#"read l; printf "a1\nextra\n"; while read l; do echo "a$l"; done"#;
    let (got, taken) = on_both_paths(|| ask(script, 100, 4, limit));
    assert_eq!(got, oks(&["a1", "extra", "a2", "a3"]));
    assert!(taken >= 1, "{taken}");
    let script = r#"read l; echo a1; sleep 0.05; echo late; while read l; do echo "a$l"; done"#;
    let (got, _) = on_both_paths(|| {
        async move {
            let cmd = BotCommand::parse(&format!("sh -c '{script}'")).unwrap();
            let mut p = BotProcess::spawn(&cmd, 100, 1024).unwrap();
            let mut got = ask_bot(&mut p, 1, limit).await;
            // The late line comes before the next request.
            tokio::time::sleep(Duration::from_millis(200)).await;
            got.extend(ask_bot(&mut p, 2, limit).await);
            let taken = p.direct_answers;
            p.kill().await;
            (got, taken)
        }
    });
    assert_eq!(got, oks(&["a1", "late", "a1"]));
}

/// A line of exactly `max_line` bytes passes, with `\n` or `\r\n` (the `\r` is not the
/// bot's); one byte more is [`IoFault::LineTooLong`], with either ending, in one write or
/// in two, and a last line without its newline is held to the same limit.
#[test]
fn a_line_at_the_limit_passes_and_one_byte_more_does_not_on_both_paths() {
    let limit = Duration::from_secs(5);
    let ten = "0123456789";
    let cases: [(&str, Result<&str, IoFault>); 10] = [
        (r#"printf "0123456789\n""#, Ok(ten)),
        (r#"printf "0123456789\r\n""#, Ok(ten)),
        (r#"printf "01234567890\n""#, Err(IoFault::LineTooLong)),
        (r#"printf "01234567890\r\n""#, Err(IoFault::LineTooLong)),
        (
            r#"printf "0123456789"; sleep 0.003; printf "0\n""#,
            Err(IoFault::LineTooLong),
        ),
        (
            r#"printf "0123456789\r"; sleep 0.003; printf "\n""#,
            Ok(ten),
        ),
        (r#"printf "0123456789\r"; sleep 0.03; printf "\n""#, Ok(ten)),
        (
            r#"printf "01234567890\r"; sleep 0.03; printf "\n""#,
            Err(IoFault::LineTooLong),
        ),
        (r#"printf "0123456789"; exit 0"#, Ok(ten)),
        (r#"printf "01234567890"; exit 0"#, Err(IoFault::LineTooLong)),
    ];
    for (answer, want) in cases {
        let script = format!("read l; {answer}; sleep 5");
        let (got, _) = on_both_paths(|| ask(&script, 10, 1, limit));
        assert_eq!(got, vec![want.clone().map(String::from)], "{answer}");
    }
}

/// A bot that closes its stdout and goes on running is [`IoFault::Closed`] (during the
/// decision, or before the request); one that exits right after an answer without its
/// newline has answered, and the next request finds it gone.
#[test]
fn a_closed_stdout_and_an_exit_after_an_unfinished_line_on_both_paths() {
    let limit = Duration::from_secs(5);
    let (got, _) =
        on_both_paths(|| ask("read l; echo a1; read l; exec 1>&-; sleep 5", 100, 3, limit));
    assert_eq!(got, vec![Ok("a1".into()), Err(IoFault::Closed)]);
    // Closed before the request is written: the table's thread reads the end at once.
    let (got, taken) = on_both_paths(|| async {
        let cmd = BotCommand::parse("sh -c 'exec 1>&-; sleep 5'").unwrap();
        let mut p = BotProcess::spawn(&cmd, 100, 1024).unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let got = ask_bot(&mut p, 1, limit).await;
        let taken = p.direct_answers;
        p.kill().await;
        (got, taken)
    });
    assert_eq!(got, vec![Err(IoFault::Closed)]);
    assert_eq!(taken, 1);
    let (got, _) = on_both_paths(|| ask("read l; printf answer", 100, 3, limit));
    assert_eq!(
        got,
        vec![
            Ok("answer".into()),
            Err(IoFault::Crash("exited with code 0".into()))
        ]
    );
}

/// A bot that writes its answer and exits at once has answered (the next request finds it
/// gone, with its exit code); one killed by a signal while deciding is a crash naming the
/// signal; one killed with an unfinished line still gives that line: the same on both paths.
#[test]
fn an_exit_after_the_answer_and_a_signal_mid_decision_are_the_same_faults_on_both_paths() {
    let limit = Duration::from_secs(5);
    let crash = |how: &str| Err(IoFault::Crash(how.into()));
    let cases = [
        (
            "read l; echo a1; exit 3",
            vec![Ok("a1".into()), crash("exited with code 3")],
        ),
        (
            "read l; echo a1; read l; kill -9 $$",
            vec![Ok("a1".into()), crash("killed by signal 9 (SIGKILL)")],
        ),
        (
            "read l; sleep 0.03; kill -SEGV $$",
            vec![crash("killed by signal 11 (SIGSEGV)")],
        ),
        (
            "read l; printf half; kill -9 $$",
            vec![Ok("half".into()), crash("killed by signal 9 (SIGKILL)")],
        ),
    ];
    for (script, want) in cases {
        let (got, _) = on_both_paths(|| ask(script, 100, 3, limit));
        assert_eq!(got, want, "{script}");
    }
}

/// A bot that floods stderr (megabytes, from a child, all the time) while another bot on the
/// same table thread decides: no hang, the deciding bot's answers come in time (at once, after
/// a pause past the first sample, and a timeout on time when it says nothing), the flooding
/// bot still answers, and its stderr is capped as before.
#[test]
fn a_stderr_flood_at_the_table_does_not_hold_up_another_bots_decisions() {
    async fn scenario() -> (Answers, u64) {
        let limit = Duration::from_millis(500);
        let cap = 1 << 16;
        let flood = BotCommand::parse(
            "sh -c 'yes flooding-stderr-flooding-stderr >&2 & while read l; do echo \"f$l\"; done'",
        )
        .unwrap();
        let mut flooder = BotProcess::spawn(&flood, 100, cap).unwrap();
        let decide = BotCommand::parse(
            "sh -c 'while read l; do case $l in *0) sleep 0.03;; 99) sleep 5;; esac; echo \"$l\"; done'",
        )
        .unwrap();
        let mut decider = BotProcess::spawn(&decide, 100, cap).unwrap();
        let mut got = Vec::new();
        for id in 1..=30u64 {
            decider
                .send_raw(format!("{id}\n").as_bytes(), limit)
                .await
                .unwrap();
            let r = decider.answer(limit).await;
            let (line, time) = r.unwrap_or_else(|f| panic!("request {id}: {f:?}"));
            assert_eq!(&line[..], id.to_string().as_bytes());
            assert!(time.wall < limit, "request {id} answered late: {time:?}");
            got.push(Ok(String::from_utf8_lossy(&line).into_owned()));
            if id % 5 == 0 {
                flooder
                    .send_raw(format!("{id}\n").as_bytes(), limit)
                    .await
                    .unwrap();
                let (line, _) = flooder.answer(limit).await.unwrap();
                got.push(Ok(String::from_utf8_lossy(&line).into_owned()));
            }
        }
        // Silent: a timeout, on time.
        let started = Instant::now();
        decider.send_raw(b"99\n", limit).await.unwrap();
        let r = decider.answer(limit).await;
        let took = started.elapsed();
        assert!(took < limit * 3, "the timeout came after {took:?}");
        got.push(r.map(|_| String::new()));
        let (kept, dropped) = flooder.stderr_text();
        assert_eq!(kept.len(), cap, "the flood is kept up to the cap");
        assert!(kept.starts_with("flooding-stderr"), "{}", &kept[..40]);
        assert!(
            dropped > 1 << 20,
            "megabytes of flood read and dropped: {dropped}"
        );
        let taken = decider.direct_answers;
        flooder.kill().await;
        decider.kill().await;
        (got, taken)
    }
    let (got, _) = on_both_paths(scenario);
    assert_eq!(got.len(), 30 + 6 + 1);
    assert_eq!(got.last(), Some(&Err(IoFault::Timeout)));
}
