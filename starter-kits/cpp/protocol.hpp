// The Durak protocol v1 messages as C++ types (docs/PROTOCOL.md, schemas/), read from JSON
// lines with nlohmann-json (Debian: apt-get install nlohmann-json3-dev). Fields a later minor
// version adds are ignored, as the protocol asks.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace durak {

using json = nlohmann::json;
using Card = std::string;  // rank then suit: "TS", "6C"

struct Limits {
    long long startup_ms = 0, move_ms = 0, bank_ms = 0, max_line_bytes = 0;
};

struct Hello {
    int protocol = 0;
    std::string variant;
    int players = 0, seat = 0, games = 0;
    Limits limits;
};

struct GameStart {
    int game = 0;
    std::string variant;
    int players = 0, seat = 0, dealer = 0, hand_size = 0;
    bool first_game = false;
};

// An event: its kind ("attacked", "game_over", ...) and its fields as JSON.
struct Event {
    int game = 0;
    std::string kind;
    json fields;
};

struct TableCard {
    Card attack;
    std::optional<Card> defence;  // unbeaten: none
};

struct Observation {
    int seat = 0;
    std::string variant;
    int players = 0, dealer = 0;
    std::vector<Card> hand;
    std::vector<int> hand_counts;
    std::vector<std::vector<Card>> known;
    std::vector<bool> active;
    std::string trump_suit;
    Card trump_card;
    bool trump_card_in_stock = false;
    int stock = 0;
    std::vector<Card> discard;
    std::vector<TableCard> table;
    int attacker = 0, defender = 0;
    std::optional<int> limit;  // podkidnoy's L (K-3)
    bool taking = false;
};

struct Exchange {  // the trump-six exchange on offer (P-4)
    Card six, trump_card;
};

struct ToBeat {
    Card attack;
    std::vector<Card> beaters;
};

// What the bot may do; the fields of its decision are set.
struct Legal {
    // attack
    std::vector<Card> hand;
    std::vector<int> sizes;
    bool same_rank = false;
    // attack and defend
    std::optional<Exchange> exchange;
    // defend
    std::vector<ToBeat> to_beat;
    std::optional<std::vector<ToBeat>> to_beat_after_exchange;
    bool must_cover_all = false, can_cover = false, can_take = false;
    // add
    std::vector<Card> addable;
    int room = 0;
    bool after_take = false;
};

struct Request {
    long long id = 0;  // copy it into the answer, never compute it
    int game = 0;
    std::string decision;  // "attack", "defend" or "add"
    long long move_ms = 0, bank_ms = 0;
    Observation observation;
    Legal legal;
};

struct Fault {
    int seat = 0;
    std::string kind, detail;
};

struct GameEnd {
    int game = 0;
    std::optional<int> loser;
    bool draw = false;
    std::vector<Fault> faults;
};

struct MatchEnd {
    int games = 0, draws = 0;
    std::vector<int> losses;
};

struct Error {
    std::optional<long long> id;
    std::string fault, message;
    std::optional<std::string> rule, pointer;
};

namespace detail {
template <class T>
std::optional<T> opt(const json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) return std::nullopt;
    return it->get<T>();
}
inline std::vector<ToBeat> to_beat(const json& a) {
    std::vector<ToBeat> out;
    for (const auto& t : a) out.push_back({t.at("attack").get<Card>(), t.at("beaters").get<std::vector<Card>>()});
    return out;
}
}  // namespace detail

inline Hello read_hello(const json& j) {
    const auto& l = j.at("limits");
    return {j.at("protocol").get<int>(), j.at("variant").get<std::string>(), j.at("players").get<int>(),
            j.at("seat").get<int>(), j.at("games").get<int>(),
            {l.at("startup_ms").get<long long>(), l.at("move_ms").get<long long>(), l.at("bank_ms").get<long long>(),
             l.at("max_line_bytes").get<long long>()}};
}

inline GameStart read_game_start(const json& j) {
    return {j.at("game").get<int>(), j.at("variant").get<std::string>(), j.at("players").get<int>(),
            j.at("seat").get<int>(), j.at("dealer").get<int>(), j.at("hand_size").get<int>(),
            j.at("first_game").get<bool>()};
}

inline Event read_event(const json& j) {
    return {j.at("game").get<int>(), j.at("event").at("kind").get<std::string>(), j.at("event")};
}

inline Observation read_observation(const json& o) {
    Observation r;
    r.seat = o.at("seat").get<int>();
    r.variant = o.at("variant").get<std::string>();
    r.players = o.at("players").get<int>();
    r.dealer = o.at("dealer").get<int>();
    r.hand = o.at("hand").get<std::vector<Card>>();
    r.hand_counts = o.at("hand_counts").get<std::vector<int>>();
    r.known = o.at("known").get<std::vector<std::vector<Card>>>();
    r.active = o.at("active").get<std::vector<bool>>();
    r.trump_suit = o.at("trump_suit").get<std::string>();
    r.trump_card = o.at("trump_card").get<Card>();
    r.trump_card_in_stock = o.at("trump_card_in_stock").get<bool>();
    r.stock = o.at("stock").get<int>();
    r.discard = o.at("discard").get<std::vector<Card>>();
    for (const auto& t : o.at("table")) r.table.push_back({t.at("attack").get<Card>(), detail::opt<Card>(t, "defence")});
    r.attacker = o.at("attacker").get<int>();
    r.defender = o.at("defender").get<int>();
    r.limit = detail::opt<int>(o, "limit");
    r.taking = o.at("taking").get<bool>();
    return r;
}

inline Legal read_legal(const std::string& decision, const json& l) {
    Legal r;
    if (auto x = l.find("exchange"); x != l.end() && !x->is_null())
        r.exchange = Exchange{x->at("six").get<Card>(), x->at("trump_card").get<Card>()};
    if (decision == "attack") {
        r.hand = l.at("hand").get<std::vector<Card>>();
        r.sizes = l.at("sizes").get<std::vector<int>>();
        r.same_rank = l.at("same_rank").get<bool>();
    } else if (decision == "defend") {
        r.to_beat = detail::to_beat(l.at("to_beat"));
        if (auto x = l.find("to_beat_after_exchange"); x != l.end() && !x->is_null())
            r.to_beat_after_exchange = detail::to_beat(*x);
        r.must_cover_all = l.at("must_cover_all").get<bool>();
        r.can_cover = l.at("can_cover").get<bool>();
        r.can_take = l.at("can_take").get<bool>();
    } else {
        r.addable = l.at("addable").get<std::vector<Card>>();
        r.room = l.at("room").get<int>();
        r.after_take = l.at("after_take").get<bool>();
    }
    return r;
}

inline Request read_request(const json& j) {
    Request r;
    r.id = j.at("id").get<long long>();
    r.game = j.at("game").get<int>();
    r.decision = j.at("decision").get<std::string>();
    r.move_ms = j.at("time").at("move_ms").get<long long>();
    r.bank_ms = j.at("time").at("bank_ms").get<long long>();
    r.observation = read_observation(j.at("observation"));
    r.legal = read_legal(r.decision, j.at("legal"));
    return r;
}

inline GameEnd read_game_end(const json& j) {
    GameEnd r{j.at("game").get<int>(), detail::opt<int>(j, "loser"), j.at("draw").get<bool>(), {}};
    for (const auto& f : j.at("faults"))
        r.faults.push_back({f.at("seat").get<int>(), f.at("kind").get<std::string>(), f.at("detail").get<std::string>()});
    return r;
}

inline MatchEnd read_match_end(const json& j) {
    return {j.at("games").get<int>(), j.at("draws").get<int>(), j.at("losses").get<std::vector<int>>()};
}

inline Error read_error(const json& j) {
    return {detail::opt<long long>(j, "id"), j.at("fault").get<std::string>(), j.at("message").get<std::string>(),
            detail::opt<std::string>(j, "rule"), detail::opt<std::string>(j, "pointer")};
}

// ----- answers ----------------------------------------------------------------------------------

inline json hello(const std::string& name, const std::string& version) {
    return {{"type", "hello"}, {"protocol", 1}, {"name", name}, {"version", version}};
}

inline json attack(long long id, const std::vector<Card>& cards, bool exchange = false) {
    json a = {{"type", "answer"}, {"id", id}, {"action", "attack"}, {"cards", cards}};
    if (exchange) a["exchange"] = true;
    return a;
}

inline json defend(long long id, const std::vector<std::pair<Card, Card>>& pairs, bool exchange = false) {
    json ps = json::array();
    for (const auto& [a, b] : pairs) ps.push_back({a, b});
    json a = {{"type", "answer"}, {"id", id}, {"action", "defend"}, {"pairs", ps}};
    if (exchange) a["exchange"] = true;
    return a;
}

inline json take(long long id) { return {{"type", "answer"}, {"id", id}, {"action", "take"}}; }

inline json add(long long id, const std::vector<Card>& cards) {
    return {{"type", "answer"}, {"id", id}, {"action", "add"}, {"cards", cards}};
}

inline json pass(long long id) { return {{"type", "answer"}, {"id", id}, {"action", "pass"}}; }

}  // namespace durak
