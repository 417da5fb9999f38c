//! The typed replay lines (`durak_protocol::replay`, which the referee writes with and this
//! crate reads with) lose nothing: every fixture replay read and written again is the same
//! lines, byte for byte, and written a third time the same again.

mod common;

use common::*;
use durak_replay::parse_replay;

#[test]
fn fixtures_read_and_written_again_are_the_same_lines() {
    let mut types = std::collections::BTreeSet::new();
    for f in FIXTURES {
        let lines = fixture_lines(f);
        let replay = parse_replay((lines.join("\n") + "\n").as_bytes(), f).unwrap();
        let again = replay.to_lines();
        for (i, (a, b)) in lines.iter().zip(&again).enumerate() {
            assert_eq!(a, b, "{f}:{}", i + 1);
        }
        assert_eq!(lines.len(), again.len(), "{f}");
        let third = parse_replay((again.join("\n") + "\n").as_bytes(), f).unwrap();
        assert_eq!(third, replay, "{f}");
        types.extend(replay.lines.iter().map(|l| l.record.type_name()));
    }
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        ["answer", "event", "fault", "move", "request", "result", "stderr"],
        "the fixtures hold every line type"
    );
}
