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

/// The transport's fast path asks the kernel for little: for a bot quiet on stderr, at most
/// `polls_per_write` looks into its stderr pipe per request, and never the supervisor's status
/// while its pidfd is quiet. What the bot writes on stderr before each answer still goes with
/// that request, and a killed supervisor is still seen.
async fn few_system_calls_per_decision(polls_per_write: u64) {
    let limit = Duration::from_secs(5);
    // A bot silent on stderr.
    let mut p = BotProcess::spawn(&BotCommand::parse("cat").unwrap(), 1 << 20, 1024).unwrap();
    let (polls, checks) = (p.stderr.polls, p.status_checks);
    for id in 1..=20u64 {
        p.mark_stderr(StderrAt::Request(id)).await;
        p.send_raw(format!("{id}\n").as_bytes(), limit)
            .await
            .unwrap();
        let (line, _) = p.answer(limit).await.unwrap();
        assert_eq!(&line[..], id.to_string().as_bytes());
    }
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
    for id in 1..=20u64 {
        p.mark_stderr(StderrAt::Request(id)).await;
        p.send_raw(format!("{id}\n").as_bytes(), limit)
            .await
            .unwrap();
        let (line, _) = p.answer(limit).await.unwrap();
        assert_eq!(&line[..], id.to_string().as_bytes());
    }
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
