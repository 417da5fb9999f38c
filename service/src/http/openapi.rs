//! The OpenAPI 3.1 document of `/api/`, served at `/api/openapi.json`. One entry per
//! operation (its summary, who may call it, its request body and what it returns); the schemas
//! of the bodies and answers are derived from the Rust types that are serialized
//! (`utoipa::ToSchema`, collected by [`Schemas`]), so they cannot drift from what is served.
//! Tests check the document against the router's routes (every route described, every
//! described route served) and that every schema it names is one of the derived ones.

use serde_json::{json, Value};
use utoipa::OpenApi;

/// The request and response types whose schemas the document holds (and every type they
/// contain, collected by utoipa).
#[derive(OpenApi)]
#[openapi(components(schemas(
    crate::views::Status,
    crate::views::LeaderboardOut,
    crate::views::BotView,
    crate::views::VersionOut,
    crate::views::GameView,
    crate::views::MeView,
    crate::http::api::NewAccount,
    crate::http::api::NewToken,
    crate::http::api::Revoked,
    crate::http::api::Invite,
    crate::http::api::Submitted,
    crate::http::api::mygames::GamesPage,
    crate::http::api::RegisterBody,
    crate::http::api::TokenBody,
    crate::http::api::ReasonBody,
    crate::http::api::TournamentBody,
    crate::http::api::Paused,
    crate::http::api::TournamentStarted,
    crate::http::api::TournamentCancelled,
    crate::http::api::TournamentList,
    crate::tournament::TournamentView,
    crate::http::api::challenges::ChallengeBody,
    crate::http::api::challenges::ChallengeMade,
    crate::http::api::challenges::ChallengeOut,
    crate::http::play_pages::PlayBody,
    crate::http::play_pages::MoveForm,
    crate::http::play_pages::PlayStarted,
    crate::http::play_pages::PlayState,
    crate::http::worker_api::Claimed,
    crate::http::worker_api::ClaimedBatch,
    crate::http::worker_answers::ClaimAnswer,
    crate::http::worker_api::ClaimBody,
    crate::http::worker_api::LeaseBody,
    crate::http::worker_api::Renewed,
    crate::http::worker_api::ReleaseBody,
    crate::http::worker_api::Released,
    crate::http::worker_api::ResultsBody,
    crate::http::worker_api::ResultsAnswer,
    crate::http::worker_tokens::TokenBody,
    crate::http::worker_tokens::WorkerTokens,
    crate::store::Version,
    crate::http::seasons::SeasonEndBody,
    crate::http::seasons::SeasonView,
    crate::http::seasons::SeasonsList,
)))]
pub struct Schemas;

/// (method, path, summary, who may call it, request body, the success status and what it
/// returns: a schema of [`Schemas`], one of the non-JSON kinds of [`answer`], or `Object` for
/// this document itself).
struct Op {
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    auth: Auth,
    body: Body,
    ok: u16,
    returns: &'static str,
}

/// A request's body.
enum Body {
    None,
    /// A bot's folder, tar.gz or zip.
    Archive,
    /// JSON, of the named schema of [`Schemas`].
    Json(&'static str),
    /// The same, which may be left out.
    Optional(&'static str),
}

#[derive(PartialEq)]
enum Auth {
    Anyone,
    Author,
    Organiser,
    /// A worker token (`/api/worker-tokens`), not an account's.
    Worker,
}

fn ops() -> Vec<Op> {
    use Auth::*;
    vec![
        Op { method: "get", path: "/api/status", summary: "The server: variant, sandbox, registration, whether the ladder is paused, games recorded, versions and jobs.", auth: Anyone, body: Body::None, ok: 200, returns: "Status" },
        Op { method: "get", path: "/api/leaderboard", summary: "The ladder's standings: rank (=N when tied), Elo with its 95 % interval, games, losses, faults, per version in the ladder.", auth: Anyone, body: Body::None, ok: 200, returns: "LeaderboardOut" },
        Op { method: "get", path: "/api/leaderboard/events", summary: "The leaderboard, live: server-sent events (text/event-stream), each `event: leaderboard` with the JSON of GET /api/leaderboard in its data; the first at once, then one whenever it changes (at most every 200 ms), and a `: keep-alive` comment every 15 s. A client that reads slowly gets the latest leaderboard, not every one in between.", auth: Anyone, body: Body::None, ok: 200, returns: "Events" },
        Op { method: "get", path: "/api/bots/{bot}", summary: "A bot and all its versions (state, reason, games, standing).", auth: Anyone, body: Body::None, ok: 200, returns: "BotView" },
        Op { method: "get", path: "/api/bots/{bot}/versions/{n}", summary: "A version: its build output, check-bot report, time per decision, latest games and faults.", auth: Anyone, body: Body::None, ok: 200, returns: "VersionOut" },
        Op { method: "get", path: "/api/games/{job}/{game}", summary: "A recorded game: seats, seed, dealer, result, faults, moves.", auth: Anyone, body: Body::None, ok: 200, returns: "GameView" },
        Op { method: "get", path: "/api/games/{job}/{game}/replay", summary: "The game's replay file (JSON lines, schemas/replay.json; decompressed when it is stored compressed).", auth: Anyone, body: Body::None, ok: 200, returns: "Replay" },
        Op { method: "get", path: "/api/me", summary: "The caller's account, versions and tokens.", auth: Author, body: Body::None, ok: 200, returns: "MeView" },
        Op { method: "post", path: "/api/accounts", summary: "Create an account (with an invite, or without when registration is open); returns its token, once.", auth: Anyone, body: Body::Json("RegisterBody"), ok: 201, returns: "NewAccount" },
        Op { method: "post", path: "/api/tokens", summary: "A new token for the caller's account; returned once.", auth: Author, body: Body::Optional("TokenBody"), ok: 201, returns: "NewToken" },
        Op { method: "delete", path: "/api/tokens/{id}", summary: "Revoke one of the caller's tokens.", auth: Author, body: Body::None, ok: 200, returns: "Revoked" },
        Op { method: "post", path: "/api/invites", summary: "A new invite token (one account each).", auth: Organiser, body: Body::None, ok: 201, returns: "Invite" },
        Op { method: "post", path: "/api/submit", summary: "Upload a bot folder (tar.gz or zip with its bot.toml) as the request body: a new version of the bot it names, kept on disk before the answer, then built and checked.", auth: Author, body: Body::Archive, ok: 201, returns: "Submitted" },
        Op { method: "post", path: "/api/ladder/pause", summary: "Pause the ladder (tables finish the job they play).", auth: Organiser, body: Body::None, ok: 200, returns: "Paused" },
        Op { method: "post", path: "/api/ladder/resume", summary: "Resume the ladder.", auth: Organiser, body: Body::None, ok: 200, returns: "Paused" },
        Op { method: "post", path: "/api/bots/{bot}/versions/{n}/disqualify", summary: "Disqualify a version: out of the ladder, its open jobs cancelled, kept with the reason.", auth: Organiser, body: Body::Optional("ReasonBody"), ok: 200, returns: "Version" },
        Op { method: "post", path: "/api/bots/{bot}/versions/{n}/remove", summary: "Remove a version from the ladder and the leaderboard.", auth: Organiser, body: Body::None, ok: 200, returns: "Version" },
        Op { method: "post", path: "/api/tournaments", summary: "Start a fixed tournament (duplicate deals, the tournament engine) among the versions in the ladder: it runs at once, or is queued behind the one running (state).", auth: Organiser, body: Body::Optional("TournamentBody"), ok: 201, returns: "TournamentStarted" },
        Op { method: "get", path: "/api/tournaments/{id}", summary: "A tournament: state, games played, and its standings once over, with the address of its full report (served under /tournaments/ID/report/).", auth: Anyone, body: Body::None, ok: 200, returns: "TournamentView" },
        Op { method: "post", path: "/api/tournaments/{id}/cancel", summary: "Cancel a fixed tournament: a queued one at once, the running one at its tables' next games (its games so far are kept); 409 once it is over.", auth: Organiser, body: Body::None, ok: 200, returns: "TournamentCancelled" },
        Op { method: "get", path: "/api/tournaments", summary: "Every tournament, newest first: id, state, when it started and ended, the address of its report once written.", auth: Anyone, body: Body::None, ok: 200, returns: "TournamentList" },
        Op { method: "post", path: "/api/challenges", summary: "Challenge: the caller's bot (its version in the ladder) against another bot in the ladder for `deals` deals, heads-up, each deal at both seat rotations; unrated, capped ([challenges] max_deals) and within a daily quota ([challenges] per_day). Returns its id and address.", auth: Author, body: Body::Json("ChallengeBody"), ok: 201, returns: "ChallengeMade" },
        Op { method: "get", path: "/api/seasons", summary: "The seasons, newest first (each with when it started and ended, by whom, its final tournament), the current one's number, and why submissions are closed if they are (between a season's end and its final tournament's).", auth: Anyone, body: Body::None, ok: 200, returns: "SeasonsList" },
        Op { method: "get", path: "/api/seasons/{n}", summary: "A season: when it started and ended; once ended, its final tournament (state, standings: the season's final standings, its report) and its ladder leaderboard as it stood at the end.", auth: Anyone, body: Body::None, ok: 200, returns: "SeasonView" },
        Op { method: "post", path: "/api/seasons/end", summary: "End the current season now: submissions close, the ladder's open jobs are cancelled, its leaderboard is kept, its final tournament is queued among the versions in the ladder, and the next season starts with fresh ratings; submissions open again when the final tournament is over. 409 if it was ended meanwhile, or when `season` is given and another season is current (a request sent twice ends one season).", auth: Organiser, body: Body::Optional("SeasonEndBody"), ok: 200, returns: "SeasonView" },
        Op { method: "get", path: "/api/challenges/{id}", summary: "A challenge: state (queued, playing, done, cancelled), games played of those planned, wins, draws, losses, score, the challenger's Elo above the opponent with its 95 % interval paired by deal, LOS, and its games.", auth: Anyone, body: Body::None, ok: 200, returns: "ChallengeOut" },
        Op { method: "post", path: "/api/play", summary: "Play my bot: a game of the caller (a person) against the bot's version in the ladder, unrated; one game in progress per author. `seat`: \"0\" (the person attacks first, the default), \"1\" or \"random\"; `variant`: the ladder's unless `[play] variants` allows another. Returns its id and the address of its page (`/play/ID`), where the person plays.", auth: Author, body: Body::Json("PlayBody"), ok: 201, returns: "PlayStarted" },
        Op { method: "get", path: "/api/play/{id}", summary: "A game of Play my bot, for its player: state (your_move, bot_deciding, over), the seat, the variant, the person's observation (never the bot's hand), the choices, the last refusal with its rule id, the events in words, the result and the replay's address once over.", auth: Author, body: Body::None, ok: 200, returns: "PlayState" },
        Op { method: "post", path: "/api/play/{id}/move", summary: "The person's move: {choice: N} (1-based, in the order of `choices`) or {move: \"7C>KC\"} in card codes; 422 names the rule a move breaks (the decision stays open), 409 when it is not the person's turn.", auth: Author, body: Body::Json("MoveForm"), ok: 200, returns: "PlayState" },
        Op { method: "get", path: "/api/bots/{bot}/versions/{n}/games", summary: "Every game of a version, newest first, filtered by `opponent` (a bot's name), `result` (won, lost, draw, void: given up after 3 voided attempts, counted for nobody) and `fault=1` (the games it faulted in), paged (`page` from 0, `per_page` 1 to 200); with the head to head per opponent version (games, wins, draws, losses, score, its void games apart, and at two seats the Elo above it with its 95 % interval paired by deal).", auth: Anyone, body: Body::None, ok: 200, returns: "GamesPage" },
        Op { method: "get", path: "/api/games/{job}/{game}/seats/{seat}/raw", summary: "What the bot at a seat read, sent and wrote on stderr in the game (as `durak replay --seat S --raw` prints it), for its author and the organiser only; the X-Durak-Rerun header gives the command to re-run a decision (`durak rerun`).", auth: Author, body: Body::None, ok: 200, returns: "Text" },
        Op { method: "get", path: "/api/openapi.json", summary: "This document.", auth: Anyone, body: Body::None, ok: 200, returns: "Object" },
        Op { method: "post", path: "/api/worker/claim", summary: "Claim the next job under a lease: the job (seats as version ids, deals with their seeds and dealers), the lease and its length, the games not yet recorded, the variant, table size, time and resource limits, and each version's command and packed folder (SHA-256, size, URL). {\"job\": null} when there is none.", auth: Worker, body: Body::Optional("ClaimBody"), ok: 200, returns: "ClaimAnswer" },
        Op { method: "post", path: "/api/worker/jobs/{job}/renew", summary: "Extend the lease on a job; 409 when the lease is not the job's any more (stop playing it).", auth: Worker, body: Body::Json("LeaseBody"), ok: 200, returns: "Renewed" },
        Op { method: "post", path: "/api/worker/jobs/{job}/results", summary: "Post games of the job: each {game, result: {loser, draw, moves}, replay_zst (the replay compressed with zstd, as a .jsonl.zst file holds it, in base64) or replay (its JSON lines)}. A compressed replay that unpacks to more than 64 MiB is refused. Every replay is verified (as durak replay --verify) and checked to be the job's game (variant, seed, dealer, seating, versions, limits); one refused game refuses the post (422: does not verify; 409: not the job's game), naming what differs. Idempotent by (job, game): a game posted twice is recorded once (recorded: false). Answered once the games are on disk.", auth: Worker, body: Body::Json("ResultsBody"), ok: 200, returns: "ResultsAnswer" },
        Op { method: "post", path: "/api/worker/jobs/{job}/release", summary: "Give the job up before its end: queued again at once for anyone. With failed ({version, reason}: this worker could not fetch or unpack a bot), the server keeps count: a version whose packed folder the server cannot unpack either is suspended, and a job that failed on 2 worker tokens or 3 times is cancelled.", auth: Worker, body: Body::Json("ReleaseBody"), ok: 200, returns: "Released" },
        Op { method: "get", path: "/api/worker/versions/{id}/bot", summary: "A version's built folder as tar.gz, its SHA-256 in the x-durak-sha256 header (and in the claim).", auth: Worker, body: Body::None, ok: 200, returns: "Archive" },
        Op { method: "get", path: "/api/worker-tokens", summary: "The worker tokens (id, label, created, revoked, last seen), never the tokens themselves.", auth: Organiser, body: Body::None, ok: 200, returns: "WorkerTokens" },
        Op { method: "post", path: "/api/worker-tokens", summary: "A new worker token for durak worker; returned once, stored hashed. It opens the worker routes only.", auth: Organiser, body: Body::Optional("WorkerTokenBody"), ok: 201, returns: "NewToken" },
        Op { method: "delete", path: "/api/worker-tokens/{id}", summary: "Revoke a worker token.", auth: Organiser, body: Body::None, ok: 200, returns: "Revoked" },
    ]
}

/// The (method, path) pairs the document describes.
pub fn operations() -> Vec<(&'static str, &'static str)> {
    ops().iter().map(|o| (o.method, o.path)).collect()
}

fn params_of(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| {
            let ty = if matches!(name, "n" | "job" | "game" | "id") {
                "integer"
            } else {
                "string"
            };
            json!({"name": name, "in": "path", "required": true, "schema": {"type": ty}})
        })
        .collect()
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// What an operation returns: its media type and schema.
fn answer(returns: &str) -> (&'static str, Value) {
    match returns {
        "Replay" => ("application/x-ndjson", json!({"type": "string"})),
        "Events" => ("text/event-stream", json!({"type": "string"})),
        "Archive" => ("application/gzip", json!({"type": "string"})),
        "Text" => ("text/plain", json!({"type": "string"})),
        // The document itself (`GET /api/openapi.json`), the one answer not typed.
        "Object" => ("application/json", schema_ref("Object")),
        typed => ("application/json", schema_ref(typed)),
    }
}

fn request_body(b: &Body) -> Option<Value> {
    match b {
        Body::None => None,
        Body::Archive => Some(json!({"required": true, "content": {
            "application/gzip": {"schema": {"type": "string", "format": "binary"}},
            "application/zip": {"schema": {"type": "string", "format": "binary"}}}})),
        Body::Json(name) | Body::Optional(name) => Some(json!({
            "required": matches!(b, Body::Json(_)),
            "content": {"application/json": {"schema": schema_ref(name)}}})),
    }
}

/// The derived schemas, by name.
fn derived_schemas() -> serde_json::Map<String, Value> {
    let doc = serde_json::to_value(Schemas::openapi()).expect("json");
    doc["components"]["schemas"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

pub fn document() -> Value {
    let mut paths = serde_json::Map::new();
    for o in ops() {
        let (media, schema) = answer(o.returns);
        let mut op = json!({
            "summary": o.summary,
            "parameters": params_of(o.path),
            "responses": {
                o.ok.to_string(): {"description": o.returns, "content": {
                    media: {"schema": schema}}},
                "4XX": {"description": "Refused: {\"error\": \"what was wrong and the fix\"}",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            }
        });
        if let Some(b) = request_body(&o.body) {
            op["requestBody"] = b;
        }
        if o.auth != Auth::Anyone {
            op["security"] = json!([{"token": []}]);
            if o.auth == Auth::Organiser {
                op["description"] = json!("Only the organiser's token.");
            }
            if o.auth == Auth::Worker {
                op["description"] = json!("Only a worker token (issued by the organiser); an account's token is refused with 403.");
            }
        }
        let entry = paths.entry(o.path.to_string()).or_insert_with(|| json!({}));
        entry[o.method] = op;
    }
    let mut schemas = derived_schemas();
    schemas.insert("Object".into(), json!({"type": "object"}));
    schemas.insert(
        "Error".into(),
        json!({"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}),
    );
    json!({
        "openapi": "3.1.0",
        "info": {"title": "durak serve", "version": env!("CARGO_PKG_VERSION"),
                 "description": "The judge service's API: accounts, submissions, the ladder, games. Every page of the site has its JSON counterpart here."},
        "paths": paths,
        "components": {
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer",
                "description": "An account's token (dk_ and 64 hex digits), from /api/accounts or the author's page."}},
            "schemas": schemas
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_document_describes_exactly_the_routes_served() {
        let served: BTreeSet<(String, String)> = crate::http::api::routes()
            .into_iter()
            .map(|(m, p, _)| (m.to_string(), p.to_string()))
            .collect();
        let described: BTreeSet<(String, String)> = operations()
            .into_iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect();
        assert_eq!(
            served.difference(&described).collect::<Vec<_>>(),
            Vec::<&(String, String)>::new(),
            "served but not described"
        );
        assert_eq!(
            described.difference(&served).collect::<Vec<_>>(),
            Vec::<&(String, String)>::new(),
            "described but not served"
        );
        let doc = document();
        for (m, p) in &described {
            let op = &doc["paths"][p][m];
            assert!(op["summary"].is_string(), "{m} {p}");
            // Every path parameter is declared.
            let declared: BTreeSet<&str> = op["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["name"].as_str().unwrap())
                .collect();
            let in_path: BTreeSet<&str> = p
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            assert_eq!(declared, in_path, "{m} {p}");
        }
    }

    /// Issue 24: every answer but the document itself has the schema of the type the handler
    /// serializes, not `{"type": "object"}`.
    #[test]
    fn no_answer_but_the_document_itself_is_untyped() {
        let doc = document();
        let object = schema_ref("Object");
        let mut untyped = Vec::new();
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                for (status, answer) in op["responses"].as_object().unwrap() {
                    let Some(json) = answer["content"].get("application/json") else {
                        continue;
                    };
                    let schema = &json["schema"];
                    if status.starts_with('2')
                        && (path.as_str(), method.as_str()) != ("/api/openapi.json", "get")
                    {
                        let typed =
                            !properties(&doc, schema).is_empty() || schema["oneOf"].is_array();
                        if *schema == object || !typed {
                            untyped.push(format!("{method} {path}"));
                        }
                    }
                }
            }
        }
        assert_eq!(
            untyped,
            Vec::<String>::new(),
            "answers without their type's schema"
        );
        assert_eq!(
            doc["paths"]["/api/openapi.json"]["get"]["responses"]["200"]["content"]
                ["application/json"]["schema"],
            object
        );
        // A claim: a job under a lease, or none (`job` null).
        let schemas = &doc["components"]["schemas"];
        let claim = &schemas["ClaimAnswer"]["oneOf"];
        assert_eq!(
            claim,
            &json!([schema_ref("ClaimedBatch"), schema_ref("NoJob")]),
            "{}",
            schemas["ClaimAnswer"]
        );
        // The first job's fields, and `more` jobs of the same shape (`max_games`).
        let batch = &schemas["ClaimedBatch"]["allOf"];
        assert_eq!(
            batch[0],
            schema_ref("Claimed"),
            "{}",
            schemas["ClaimedBatch"]
        );
        assert_eq!(
            batch[1]["properties"]["more"]["items"],
            schema_ref("Claimed"),
            "{}",
            schemas["ClaimedBatch"]
        );
        assert_eq!(schemas["NoJob"]["properties"]["job"]["type"], "null");
        assert_eq!(schemas["NoJob"]["required"], json!(["job", "retry_ms"]));
        // The answers typed by issue 24 name their fields.
        let ok = |method: &str, path: &str, status: &str| {
            let schema = &doc["paths"][path][method]["responses"][status]["content"]
                ["application/json"]["schema"];
            properties(&doc, schema)
        };
        for (method, path, status, field) in [
            ("delete", "/api/tokens/{id}", "200", "revoked"),
            ("post", "/api/ladder/pause", "200", "paused"),
            ("post", "/api/tournaments", "201", "api"),
            ("get", "/api/tournaments/{id}", "200", "games_played"),
            ("post", "/api/tournaments/{id}/cancel", "200", "cancelled"),
            ("get", "/api/tournaments", "200", "tournaments"),
            ("post", "/api/challenges", "201", "url"),
            ("get", "/api/challenges/{id}", "200", "game_list"),
            ("get", "/api/challenges/{id}", "200", "elo_ci95"),
            ("post", "/api/play", "201", "url"),
            ("get", "/api/play/{id}", "200", "choices"),
            ("post", "/api/play/{id}/move", "200", "refusal"),
            ("post", "/api/worker/jobs/{job}/renew", "200", "lease_ms"),
            ("post", "/api/worker/jobs/{job}/release", "200", "suspended"),
            ("get", "/api/worker-tokens", "200", "worker_tokens"),
            ("delete", "/api/worker-tokens/{id}", "200", "revoked"),
        ] {
            let fields = ok(method, path, status);
            assert!(
                fields.contains(field),
                "{method} {path}: {field} in {fields:?}"
            );
        }
    }

    /// The typed answers send the JSON the handlers built by hand before (issue 24): the same
    /// fields in the same order, an absent `cancelled`, `suspended` or `note` left out.
    #[test]
    fn the_typed_answers_serialize_as_the_hand_built_json_did() {
        use crate::http::worker_answers::{ClaimAnswer, GameRecorded, NoJob, Released, Suspension};
        fn text(v: &impl serde::Serialize) -> String {
            serde_json::to_string(v).expect("json")
        }
        let released = Released {
            job: 7,
            released: true,
            cancelled: None,
            suspended: None,
        };
        assert_eq!(text(&released), r#"{"job":7,"released":true}"#);
        let suspended = Released {
            suspended: Some(Suspension {
                version: 3,
                reason: "r".into(),
            }),
            ..released
        };
        assert_eq!(
            text(&suspended),
            r#"{"job":7,"released":true,"suspended":{"version":3,"reason":"r"}}"#
        );
        let again = GameRecorded {
            game: 2,
            recorded: false,
            note: Some("recorded before: counted once"),
        };
        assert_eq!(
            text(&again),
            r#"{"game":2,"recorded":false,"note":"recorded before: counted once"}"#
        );
        let none = ClaimAnswer::None(NoJob {
            job: None,
            retry_ms: 1000,
        });
        assert_eq!(text(&none), r#"{"job":null,"retry_ms":1000}"#);
        let started = crate::http::api::TournamentStarted {
            id: 4,
            state: crate::domain::TournamentState::Queued,
            url: "/tournaments/4".into(),
            api: "/api/tournaments/4".into(),
        };
        assert_eq!(
            text(&started),
            r#"{"id":4,"state":"queued","url":"/tournaments/4","api":"/api/tournaments/4"}"#
        );
    }

    /// The property names of a schema, through `$ref`s, `allOf` and `oneOf` (those of any
    /// alternative).
    fn properties(doc: &Value, schema: &Value) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if let Some(r) = schema["$ref"].as_str() {
            let name = r.trim_start_matches("#/components/schemas/");
            let target = &doc["components"]["schemas"][name];
            assert!(target.is_object(), "{r} names no schema");
            out.extend(properties(doc, target));
        }
        let parts = [&schema["allOf"], &schema["oneOf"]];
        for part in parts.into_iter().filter_map(Value::as_array).flatten() {
            out.extend(properties(doc, part));
        }
        if let Some(p) = schema["properties"].as_object() {
            out.extend(p.keys().cloned());
        }
        out
    }

    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    out.push(r.to_string());
                }
                m.values().for_each(|x| refs(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }

    #[test]
    fn the_schemas_are_the_types_and_every_reference_resolves() {
        let doc = document();
        let mut all = Vec::new();
        refs(&doc, &mut all);
        for r in &all {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or(r);
            assert!(
                doc["components"]["schemas"][name].is_object(),
                "{r} names no schema"
            );
        }
        let ok = |path: &str| {
            doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
                .clone()
        };
        // A version's JSON: its row's fields (flattened), its own and its standing, with
        // their types; not `{"type": "object"}`.
        let version = properties(&doc, &ok("/api/bots/{bot}/versions/{n}"));
        for field in [
            "state",
            "games",
            "latest_games",
            "previous",
            "standing",
            "bot",
            "n",
        ] {
            assert!(version.contains(field), "{field} in {version:?}");
        }
        let state = &doc["components"]["schemas"]["VersionState"];
        assert!(
            state["enum"].as_array().unwrap().contains(&json!("active")),
            "{state}"
        );
        let leaderboard = properties(&doc, &ok("/api/leaderboard"));
        for field in ["rows", "games", "paused", "limits", "season"] {
            assert!(leaderboard.contains(field), "{field} in {leaderboard:?}");
        }
        let status = &doc["components"]["schemas"]["Status"];
        assert_eq!(status["properties"]["games"]["type"], "integer", "{status}");
        // A request body is its type's schema too.
        let body = &doc["paths"]["/api/challenges"]["post"]["requestBody"]["content"]
            ["application/json"]["schema"];
        let challenge = properties(&doc, body);
        assert_eq!(
            challenge.into_iter().collect::<Vec<_>>(),
            ["bot", "deals", "opponent"]
        );
    }
}
