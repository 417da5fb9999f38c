// Legal moves from a request's `legal` object (docs/PROTOCOL.md, "Using the legal object"):
// every legal attack, a complete podkidnoy cover, the cards to add. Whatever these return is
// legal; which to choose is your bot's business.
#pragma once

#include "protocol.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace durak {

inline int rank(const Card& c) { return static_cast<int>(std::string("6789TJQKA").find(c[0])); }

// Low ranks first, trumps after every non-trump.
inline std::function<bool(const Card&, const Card&)> cheapest_first(const std::string& trump) {
    return [trump](const Card& a, const Card& b) {
        auto cost = [&](const Card& c) { return rank(c) + (c.substr(1) == trump ? 10 : 0); };
        return cost(a) < cost(b);
    };
}

// Every legal attack from `hand`. Podkidnoy (same_rank): one or more cards of one rank, at most
// max(sizes). Prostoy: 1 card; 3 with a pair; 5 with two pairs (P-5), each size only if listed
// in sizes (P-6).
inline std::vector<std::vector<Card>> attacks(const std::vector<Card>& hand, const std::vector<int>& sizes,
                                              bool same_rank) {
    std::vector<std::vector<Card>> out;
    int max = sizes.empty() ? 1 : *std::max_element(sizes.begin(), sizes.end());
    std::map<int, std::vector<Card>> by_rank;
    for (const auto& c : hand) by_rank[rank(c)].push_back(c);
    if (same_rank) {
        for (const auto& [r, same] : by_rank) {
            int n = static_cast<int>(same.size());
            for (int mask = 1; mask < (1 << n); mask++) {
                std::vector<Card> pick;
                for (int i = 0; i < n; i++)
                    if (mask & (1 << i)) pick.push_back(same[i]);
                if (static_cast<int>(pick.size()) <= max) out.push_back(pick);
            }
        }
        return out;
    }
    for (const auto& c : hand) out.push_back({c});
    std::vector<std::pair<Card, Card>> pairs;
    for (const auto& [r, same] : by_rank)
        for (size_t a = 0; a < same.size(); a++)
            for (size_t b = a + 1; b < same.size(); b++) pairs.push_back({same[a], same[b]});
    std::set<std::set<Card>> seen;
    auto add_unique = [&](std::vector<Card> cards) {
        std::set<Card> s(cards.begin(), cards.end());
        if (s.size() == cards.size() && seen.insert(s).second) out.push_back(cards);
    };
    auto has = [&](int k) { return std::find(sizes.begin(), sizes.end(), k) != sizes.end(); };
    if (has(3))
        for (const auto& p : pairs)
            for (const auto& c : hand) add_unique({p.first, p.second, c});
    if (has(5))
        for (size_t a = 0; a < pairs.size(); a++)
            for (size_t b = a + 1; b < pairs.size(); b++)
                for (const auto& c : hand)
                    add_unique({pairs[a].first, pairs[a].second, pairs[b].first, pairs[b].second, c});
    return out;
}

// A complete cover: every card of `to_beat` beaten by a different card, or none (then take).
// Backtracking: a greedy choice can fail (K-7). Beaters are tried in the order of `better`.
inline std::optional<std::vector<std::pair<Card, Card>>> full_cover(
    const std::vector<ToBeat>& to_beat, const std::function<bool(const Card&, const Card&)>& better) {
    std::vector<std::pair<Card, Card>> pairs;
    std::set<Card> used;
    std::function<bool(size_t)> go = [&](size_t i) {
        if (i == to_beat.size()) return true;
        auto beaters = to_beat[i].beaters;
        std::sort(beaters.begin(), beaters.end(), better);
        for (const auto& b : beaters) {
            if (!used.insert(b).second) continue;
            pairs.push_back({to_beat[i].attack, b});
            if (go(i + 1)) return true;
            pairs.pop_back();
            used.erase(b);
        }
        return false;
    };
    if (go(0)) return pairs;
    return std::nullopt;
}

// Prostoy: beat what you can, each attack card with its first free beater in the order of
// `better`; the rest you pick up (P-8, P-9). Always legal, even empty.
inline std::vector<std::pair<Card, Card>> beat_what_you_can(
    const std::vector<ToBeat>& to_beat, const std::function<bool(const Card&, const Card&)>& better) {
    std::vector<std::pair<Card, Card>> pairs;
    std::set<Card> used;
    for (const auto& t : to_beat) {
        auto beaters = t.beaters;
        std::sort(beaters.begin(), beaters.end(), better);
        for (const auto& b : beaters)
            if (used.insert(b).second) {
                pairs.push_back({t.attack, b});
                break;
            }
    }
    return pairs;
}

// Up to `n` cards to add: from addable, at most room of them (K-3, K-6).
inline std::vector<Card> addable(const Legal& l, int n, const std::function<bool(const Card&, const Card&)>& better) {
    auto cards = l.addable;
    std::sort(cards.begin(), cards.end(), better);
    cards.resize(std::min<size_t>(cards.size(), static_cast<size_t>(std::max(0, std::min(n, l.room)))));
    return cards;
}

}  // namespace durak
