// A starter Durak bot in C++17 (protocol v1): always legal, and plays its cheapest cards first.
// Change decide() to make it play better; legal.hpp lists the legal choices.
#include "legal.hpp"
#include "protocol.hpp"

#include <iostream>
#include <string>

using namespace durak;

static json decide(const Request& r) {
    auto cheap = cheapest_first(r.observation.trump_suit);
    const Legal& l = r.legal;
    if (r.decision == "attack") {
        auto all = attacks(l.hand, l.sizes, l.same_rank);
        // The attack with the cheapest highest card, then the most cards.
        auto top = [&](const std::vector<Card>& c) { return *std::max_element(c.begin(), c.end(), cheap); };
        std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
            if (cheap(top(a), top(b))) return true;
            if (cheap(top(b), top(a))) return false;
            return a.size() > b.size();
        });
        return attack(r.id, all.front());
    }
    if (r.decision == "defend") {
        if (l.must_cover_all) {
            auto cover = full_cover(l.to_beat, cheap);
            return cover ? defend(r.id, *cover) : take(r.id);
        }
        return defend(r.id, beat_what_you_can(l.to_beat, cheap));
    }
    auto cards = addable(l, 1, cheap);
    if (!cards.empty() && cards[0].substr(1) != r.observation.trump_suit) return add(r.id, cards);
    return pass(r.id);
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        json msg = json::parse(line);
        std::string type = msg.value("type", "");
        if (type == "hello") {
            std::cout << hello("cpp-starter", "1.0").dump() << std::endl;  // endl flushes
        } else if (type == "request") {
            std::cout << decide(read_request(msg)).dump() << std::endl;
        } else if (type == "error") {
            std::cerr << "the referee says: " << read_error(msg).message << std::endl;
        } else if (type == "match_end") {
            return 0;
        }
        // Events, game_start, game_end and unknown messages: nothing to do.
    }
    return 0;
}
