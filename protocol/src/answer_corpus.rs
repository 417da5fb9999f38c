//! The answer's two paths hold the same verdicts: the typed parser (`answer.rs`) takes only
//! lines the schema's path takes, with the same id and move, and [`judge_answer`] (which tries
//! the typed parser first) accepts and refuses exactly what the schema's path alone does, with
//! the same refusal: over a corpus written by hand (every kind of mistake the schema names)
//! and one generated from pieces of right and wrong answers.

use crate::answer::typed_answer;
use crate::judge_answer;
use crate::messages::{check_answer_id, parse_answer, parse_line, Refusal};
use durak_rules::random::SmallRng;
use durak_rules::{Game, Move, Seat, Setup, Variant};

/// The schema's path alone: what `judge_answer` did before the typed parser.
fn schema_path(line: &[u8]) -> Result<(u64, Move), Refusal> {
    parse_answer(&parse_line(line)?)
}

fn schema_judge(line: &[u8], id: u64, game: &Game, seat: Seat) -> Result<Move, Refusal> {
    let (answer_id, mv) = schema_path(line)?;
    check_answer_id(answer_id, id)?;
    game.check(seat, &mv).map_err(Refusal::illegal)?;
    Ok(mv)
}

fn game() -> (Game, Seat) {
    let g = Game::new(Setup::new(Variant::Podkidnoy, 2), 7).unwrap();
    let seat = g.legal().unwrap().decision.seat;
    (g, seat)
}

/// Both paths on `line`; returns whether the typed parser took it.
fn same_verdict(line: &[u8], game: &Game, seat: Seat) -> bool {
    let shown = String::from_utf8_lossy(line);
    let typed = typed_answer(line);
    let schema = schema_path(line);
    if let Some(answer) = typed {
        assert_eq!(
            schema.as_ref().ok(),
            Some(&answer),
            "the typed parser took {shown}, the schema's path said {schema:?}"
        );
    }
    for open in [0, 7] {
        assert_eq!(
            judge_answer(line, open, game, seat),
            schema_judge(line, open, game, seat),
            "{shown}"
        );
    }
    typed.is_some()
}

/// Well-formed answers, written the plain way: the typed parser takes each (the fast path).
const PLAIN: &[&str] = &[
    r#"{"type":"answer","id":7,"action":"take"}"#,
    r#"{"type":"answer","id":7,"action":"pass"}"#,
    r#"{"action":"pass","id":7,"type":"answer"}"#,
    r#" { "type" : "answer" , "id" : 0 , "action" : "take" } "#,
    "{\"type\":\"answer\",\t\"id\":7,\r\n\"action\":\"take\"}\r\n",
    r#"{"type":"answer","id":18446744073709551615,"action":"take"}"#,
    r#"{"type":"answer","id":7,"action":"attack","cards":["7S"]}"#,
    r#"{"type":"answer","id":7,"action":"attack","cards":["6C","7D","8H","9S","TC","AS"]}"#,
    r#"{"type":"answer","id":7,"action":"attack","cards":["JH"],"exchange":true}"#,
    r#"{"type":"answer","id":7,"action":"attack","exchange":false,"cards":["QD","KD"]}"#,
    r#"{"type":"answer","id":7,"action":"add","cards":["7S","7H"]}"#,
    r#"{"type":"answer","id":7,"action":"defend","pairs":[]}"#,
    r#"{"type":"answer","id":7,"action":"defend","pairs":[["7S","8S"]]}"#,
    r#"{"type":"answer","id":7,"action":"defend","pairs":[["7S","8S"],["7H","AH"]],"exchange":true}"#,
    r#"{"type":"answer","id":7,"action":"defend","pairs":[["6C","7C"],["6D","7D"],["6H","7H"],["6S","7S"],["8C","9C"],["8D","9D"]]}"#,
    r#"{"type":"answer","id":7,"action":"defend","pairs":[["7S","8S"],["8S","7S"]]}"#,
];

/// Lines the schema's path decides (a mistake, or what the typed parser leaves to it).
const OTHERS: &[&[u8]] = &[
    // Not JSON, not an object, trailing garbage.
    b"",
    b" ",
    b"{not json",
    b"null",
    b"[]",
    b"\"answer\"",
    b"7",
    br#"["answer",7,"take"]"#,
    br#"{"type":"answer","id":7,"action":"take"}x"#,
    br#"{"type":"answer","id":7,"action":"take"} {}"#,
    br#"{"type":"answer","id":7,"action":"take"},"#,
    br#"{"type":"answer","id":7,"action":"take",}"#,
    br#"{"type":"answer","id":7,"action":"take""#,
    br#"{'type':'answer','id':7,'action':'take'}"#,
    // Not UTF-8; a byte order mark; unicode in and around the fields.
    b"{\"type\":\"answer\",\"id\":7,\"action\":\"take\",\"x\":\"\xff\"}",
    b"\xef\xbb\xbf{\"type\":\"answer\",\"id\":7,\"action\":\"take\"}",
    "{\"type\":\"answer\",\"id\":7,\"action\":\"attack\",\"cards\":[\"7♠\"]}".as_bytes(),
    "{\"type\":\"отвéт\",\"id\":7,\"action\":\"take\"}".as_bytes(),
    br#"{"type":"\u0061nswer","id":7,"action":"take"}"#,
    br#"{"\u0074ype":"answer","id":7,"action":"take"}"#,
    br#"{"type":"answer","id":7,"action":"t\u0061ke"}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["\u0037S"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S\u0000"]}"#,
    br#"{"type":"answer","id":7,"action":"take","\u0000":1}"#,
    // Missing fields.
    br#"{}"#,
    br#"{"id":7,"action":"take"}"#,
    br#"{"type":"answer","action":"take"}"#,
    br#"{"type":"answer","id":7}"#,
    br#"{"type":"answer","id":7,"action":"attack"}"#,
    br#"{"type":"answer","id":7,"action":"add"}"#,
    br#"{"type":"answer","id":7,"action":"defend"}"#,
    // Extra fields, or a field of another action.
    br#"{"type":"answer","id":7,"action":"take","comment":"hi"}"#,
    br#"{"type":"answer","id":7,"action":"take","pairs":[]}"#,
    br#"{"type":"answer","id":7,"action":"pass","cards":["7S"]}"#,
    br#"{"type":"answer","id":7,"action":"take","exchange":false}"#,
    br#"{"type":"answer","id":7,"action":"add","cards":["7S"],"exchange":false}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S"],"pairs":[]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[],"cards":["7S"]}"#,
    br#"{"type":"answer","id":7,"action":"take","Type":"answer"}"#,
    br#"{"type":"answer","id":7,"action":"take","id ":7}"#,
    // Wrong types and values.
    br#"{"type":"anwser","id":7,"action":"take"}"#,
    br#"{"type":"Answer","id":7,"action":"take"}"#,
    br#"{"type":"hello","id":7,"action":"take"}"#,
    br#"{"type":null,"id":7,"action":"take"}"#,
    br#"{"type":["answer"],"id":7,"action":"take"}"#,
    br#"{"type":"answer","id":7,"action":"fold"}"#,
    br#"{"type":"answer","id":7,"action":"TAKE"}"#,
    br#"{"type":"answer","id":7,"action":null}"#,
    br#"{"type":"answer","id":7,"action":1}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":"7S"}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":null}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":{"0":"7S"}}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S"],"exchange":null}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S"],"exchange":"true"}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S"],"exchange":1}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":null}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":{}}"#,
    // Ids that are not request ids, huge numbers.
    br#"{"type":"answer","id":"7","action":"take"}"#,
    br#"{"type":"answer","id":7.0,"action":"take"}"#,
    br#"{"type":"answer","id":7.5,"action":"take"}"#,
    br#"{"type":"answer","id":7e0,"action":"take"}"#,
    br#"{"type":"answer","id":0.7e1,"action":"take"}"#,
    br#"{"type":"answer","id":-7,"action":"take"}"#,
    br#"{"type":"answer","id":-0,"action":"take"}"#,
    br#"{"type":"answer","id":07,"action":"take"}"#,
    br#"{"type":"answer","id":+7,"action":"take"}"#,
    br#"{"type":"answer","id":18446744073709551616,"action":"take"}"#,
    br#"{"type":"answer","id":99999999999999999999999999999999999999,"action":"take"}"#,
    br#"{"type":"answer","id":1e400,"action":"take"}"#,
    br#"{"type":"answer","id":-9223372036854775809,"action":"take"}"#,
    br#"{"type":"answer","id":null,"action":"take"}"#,
    br#"{"type":"answer","id":true,"action":"take"}"#,
    br#"{"type":"answer","id":[7],"action":"take"}"#,
    br#"{"type":"answer","id":{"id":7},"action":"take"}"#,
    // Keys written twice: serde_json keeps the last; the schema's path decides.
    br#"{"type":"answer","id":7,"id":7,"action":"take"}"#,
    br#"{"type":"answer","id":6,"id":7,"action":"take"}"#,
    br#"{"type":"answer","id":"x","id":7,"action":"take"}"#,
    br#"{"type":"answer","id":7,"action":"take","action":"pass"}"#,
    br#"{"type":"hello","type":"answer","id":7,"action":"take"}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S"],"cards":["8S"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S"],"exchange":true,"exchange":false}"#,
    // Cards: not cards, too few, too many, twice.
    br#"{"type":"answer","id":7,"action":"attack","cards":[]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["10H"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7s"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["S7"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7X"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["1H"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S "]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S\n"]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":[""]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":[7]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":[null]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":[["7S"]]}"#,
    br#"{"type":"answer","id":7,"action":"attack","cards":["7S","7S"]}"#,
    br#"{"type":"answer","id":7,"action":"add","cards":["9S","9D","9S"]}"#,
    br#"{"type":"answer","id":7,"action":"add","cards":["6C","7C","8C","9C","TC","JC","QC"]}"#,
    // Pairs: not pairs, too many, twice.
    br#"{"type":"answer","id":7,"action":"defend","pairs":[["7S"]]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[[]]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[["7S","8S","9S"]]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[["7S","7S"]]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[["7C","kc"]]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[[7,"8S"]]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[["7S","8S"],["7S","8S"]]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":["7S","8S"]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[{"7S":"8S"}]}"#,
    br#"{"type":"answer","id":7,"action":"defend","pairs":[["6C","7C"],["6D","7D"],["6H","7H"],["6S","7S"],["8C","9C"],["8D","9D"],["8H","9H"]]}"#,
    // Deep nesting where a value is expected.
    br#"{"type":"answer","id":7,"action":"take","comment":[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]}"#,
];

#[test]
fn plain_answers_take_the_typed_path_with_the_schemas_verdict() {
    let (g, seat) = game();
    for line in PLAIN {
        assert!(
            same_verdict(line.as_bytes(), &g, seat),
            "the typed parser should take {line}"
        );
    }
}

#[test]
fn every_other_line_is_the_schemas_to_judge() {
    let (g, seat) = game();
    for line in OTHERS {
        assert!(
            !same_verdict(line, &g, seat),
            "the typed parser took {}",
            String::from_utf8_lossy(line)
        );
    }
}

/// Values for each key: right ones first (picked more often), then wrong ones.
const VALUES: &[(&str, usize, &[&str])] = &[
    ("\"type\"", 1, &["\"answer\"", "\"anwser\"", "\"\\u0061nswer\"", "null", "1"]),
    (
        "\"id\"",
        3,
        &[
            "7", "0", "18446744073709551615", "18446744073709551616", "-1", "-0", "7.0", "7e0",
            "\"7\"", "null", "[7]",
        ],
    ),
    (
        "\"action\"",
        5,
        &[
            "\"attack\"", "\"defend\"", "\"take\"", "\"add\"", "\"pass\"", "\"fold\"", "\"Take\"",
            "null",
        ],
    ),
    (
        "\"cards\"",
        4,
        &[
            "[\"7S\"]",
            "[\"6C\",\"7D\"]",
            "[\"6C\",\"7C\",\"8C\",\"9C\",\"TC\",\"JC\"]",
            "[\"AH\",\"KH\",\"QH\"]",
            "[]",
            "[\"6C\",\"7C\",\"8C\",\"9C\",\"TC\",\"JC\",\"QC\"]",
            "[\"7S\",\"7S\"]",
            "[\"10H\"]",
            "[\"7s\"]",
            "[\"\\u0037S\"]",
            "[7]",
            "\"7S\"",
            "null",
            "[[\"7S\"]]",
        ],
    ),
    (
        "\"pairs\"",
        4,
        &[
            "[]",
            "[[\"7S\",\"8S\"]]",
            "[[\"7S\",\"8S\"],[\"9D\",\"TD\"]]",
            "[[\"6C\",\"7C\"],[\"6D\",\"7D\"],[\"6H\",\"7H\"],[\"6S\",\"7S\"],[\"8C\",\"9C\"],[\"8D\",\"9D\"]]",
            "[[\"6C\",\"7C\"],[\"6D\",\"7D\"],[\"6H\",\"7H\"],[\"6S\",\"7S\"],[\"8C\",\"9C\"],[\"8D\",\"9D\"],[\"8H\",\"9H\"]]",
            "[[\"7S\",\"7S\"]]",
            "[[\"7S\"]]",
            "[[\"7S\",\"8S\",\"9S\"]]",
            "[[\"7S\",\"8S\"],[\"7S\",\"8S\"]]",
            "[\"7S\"]",
            "null",
            "[[7,\"8S\"]]",
        ],
    ),
    ("\"exchange\"", 2, &["true", "false", "null", "\"true\"", "0"]),
    ("\"comment\"", 0, &["\"hi\"", "null", "{}"]),
    ("\"\\u0074ype\"", 0, &["\"answer\""]),
];

const SPACES: &[&str] = &["", "", "", " ", "\t", "\r\n", "  "];
const TAILS: &[&str] = &["", "", "", "", "", " ", "\r\n", "x", " {}", ",", "]"];

/// One generated line: the three keys the schema requires most of the time, a few others, in
/// any order, some written twice, right values more often than wrong ones.
fn generated(rng: &mut SmallRng) -> String {
    let mut fields: Vec<String> = Vec::new();
    for (i, (key, right, values)) in VALUES.iter().enumerate() {
        let wanted = match i {
            0..3 => rng.below(10) > 0,
            3..6 => rng.below(3) == 0,
            _ => rng.below(12) == 0,
        };
        let times = if rng.below(20) == 0 { 2 } else { 1 };
        for _ in 0..usize::from(wanted) * times {
            let value = if *right > 0 && rng.below(4) > 0 {
                values[rng.below(*right)]
            } else {
                values[rng.below(values.len())]
            };
            let sp = |rng: &mut SmallRng| SPACES[rng.below(SPACES.len())];
            fields.push(format!(
                "{}{key}{}:{}{value}{}",
                sp(rng),
                sp(rng),
                sp(rng),
                sp(rng)
            ));
        }
    }
    for i in (1..fields.len()).rev() {
        fields.swap(i, rng.below(i + 1));
    }
    format!("{{{}}}{}", fields.join(","), TAILS[rng.below(TAILS.len())])
}

#[test]
fn generated_answers_have_the_same_verdict_both_ways() {
    let (g, seat) = game();
    let mut rng = SmallRng::new(23);
    let (mut typed, mut schema_only, mut refused) = (0, 0, 0);
    for _ in 0..20_000 {
        let line = generated(&mut rng);
        if same_verdict(line.as_bytes(), &g, seat) {
            typed += 1;
        } else if schema_path(line.as_bytes()).is_ok() {
            schema_only += 1;
        } else {
            refused += 1;
        }
    }
    // The corpus reaches every outcome: taken by the typed parser, taken by the schema's path
    // only (keys twice, escapes), refused.
    assert!(
        typed > 500 && schema_only > 100 && refused > 1000,
        "typed {typed}, schema only {schema_only}, refused {refused}"
    );
}
