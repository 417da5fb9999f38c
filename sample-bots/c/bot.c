/* A Durak bot in C (protocol v1, see docs/PROTOCOL.md). ISO C standard library only.
 *
 * It reads one JSON object per line on stdin and answers on stdout, flushing after each line.
 * It plays cheap cards first, using only each request's "legal" object:
 *   attack  prostoy: a low pair plus the cheapest other card if 3 is in legal.sizes, else the
 *           cheapest card (P-5); podkidnoy: every card of the cheapest card's rank, at most
 *           max(legal.sizes) (K-4). It never uses the trump-six exchange (P-4).
 *   defend  prostoy: each attack card gets its cheapest free beater (P-8);
 *           podkidnoy: the cheapest complete cover, found by backtracking, or take (K-7).
 *   add     every addable non-trump up to ten, at most legal.room; else pass (K-6, K-3).
 *
 * Build and check:  cc -O2 -o bot sample-bots/c/bot.c
 *                   durak check-bot ./bot
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----- a tiny JSON parser: enough for the referee's messages ----------------------------- */

enum kind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct value {
    enum kind kind;
    int truth;            /* J_BOOL */
    char *text;           /* J_STR: the string; J_NUM: the number as written */
    int len;              /* J_ARR, J_OBJ: the number of items */
    char **keys;          /* J_OBJ: the keys */
    struct value *items;  /* J_ARR, J_OBJ: the items (values) */
} value;

static const char *at; /* the parser's position in the line */

static void skip_space(void) {
    while (*at == ' ' || *at == '\t' || *at == '\r' || *at == '\n') at++;
}

static char *parse_string(void) { /* at points after the opening quote */
    const char *end = at;
    char *out, *o;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    out = o = malloc(end - at + 1);
    while (*at && *at != '"') {
        if (*at == '\\' && at[1]) {
            at++;
            switch (*at) {
            case 'n': *o++ = '\n'; break;
            case 't': *o++ = '\t'; break;
            case 'r': *o++ = '\r'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'u': *o++ = '?'; at += strlen(at) >= 5 ? 4 : 0; break; /* not needed here */
            default: *o++ = *at; /* \" \\ \/ */
            }
            at++;
        } else {
            *o++ = *at++;
        }
    }
    if (*at == '"') at++;
    *o = '\0';
    return out;
}

static int parse_value(value *v);

static int parse_items(value *v, int object) { /* at points after [ or { */
    int cap = 8;
    v->len = 0;
    v->items = malloc(cap * sizeof(value));
    v->keys = object ? malloc(cap * sizeof(char *)) : NULL;
    skip_space();
    if (*at == (object ? '}' : ']')) { at++; return 1; }
    for (;;) {
        if (v->len == cap) {
            cap *= 2;
            v->items = realloc(v->items, cap * sizeof(value));
            if (object) v->keys = realloc(v->keys, cap * sizeof(char *));
        }
        skip_space();
        if (object) {
            if (*at != '"') return 0;
            at++;
            v->keys[v->len] = parse_string();
            skip_space();
            if (*at != ':') return 0;
            at++;
        }
        if (!parse_value(&v->items[v->len])) return 0;
        v->len++;
        skip_space();
        if (*at == ',') { at++; continue; }
        if (*at == (object ? '}' : ']')) { at++; return 1; }
        return 0;
    }
}

static int parse_value(value *v) {
    memset(v, 0, sizeof *v);
    skip_space();
    if (*at == '{') { at++; v->kind = J_OBJ; return parse_items(v, 1); }
    if (*at == '[') { at++; v->kind = J_ARR; return parse_items(v, 0); }
    if (*at == '"') { at++; v->kind = J_STR; v->text = parse_string(); return 1; }
    if (strncmp(at, "true", 4) == 0) { at += 4; v->kind = J_BOOL; v->truth = 1; return 1; }
    if (strncmp(at, "false", 5) == 0) { at += 5; v->kind = J_BOOL; return 1; }
    if (strncmp(at, "null", 4) == 0) { at += 4; v->kind = J_NULL; return 1; }
    if (*at == '-' || (*at >= '0' && *at <= '9')) {
        const char *start = at;
        while (*at && strchr("+-0123456789.eE", *at)) at++;
        v->kind = J_NUM;
        v->text = malloc(at - start + 1);
        memcpy(v->text, start, at - start);
        v->text[at - start] = '\0';
        return 1;
    }
    return 0;
}

static void free_value(value *v) {
    int i;
    for (i = 0; i < v->len; i++) {
        free_value(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

/* The member `key` of an object, or a static null. */
static value *get(value *v, const char *key) {
    static value null_value;
    int i;
    if (v && v->kind == J_OBJ)
        for (i = 0; i < v->len; i++)
            if (strcmp(v->keys[i], key) == 0) return &v->items[i];
    return &null_value;
}

static const char *str(value *v) { return v->kind == J_STR ? v->text : ""; }
static int num(value *v) { return v->kind == J_NUM ? atoi(v->text) : 0; }

/* ----- cards ----------------------------------------------------------------------------- */

#define MAX_CARDS 36
static char trump; /* the trump suit letter */

/* How much a card is worth keeping: its rank, plus 10 for a trump. */
static int cost(const char *card) {
    return (int)(strchr("6789TJQKA", card[0]) - "6789TJQKA") + (card[1] == trump ? 10 : 0);
}

static int by_cost(const void *a, const void *b) {
    return cost(*(const char *const *)a) - cost(*(const char *const *)b);
}

/* The strings of a JSON array of cards, cheapest first. Returns how many. */
static int cards(value *arr, const char **out) {
    int i, n = 0;
    for (i = 0; arr->kind == J_ARR && i < arr->len && n < MAX_CARDS; i++)
        out[n++] = str(&arr->items[i]);
    qsort(out, n, sizeof *out, by_cost);
    return n;
}

static void print_cards(const char **list, int n) {
    int i;
    printf("[");
    for (i = 0; i < n; i++) printf("%s\"%s\"", i ? "," : "", list[i]);
    printf("]");
}

/* ----- decisions ------------------------------------------------------------------------- */

static int has_size(value *legal, int k) {
    value *sizes = get(legal, "sizes");
    int i;
    for (i = 0; i < sizes->len; i++)
        if (num(&sizes->items[i]) == k) return 1;
    return 0;
}

static void attack(value *legal) {
    const char *hand[MAX_CARDS], *play[MAX_CARDS];
    int n = cards(get(legal, "hand"), hand), k = 0, i, j;
    if (get(legal, "same_rank")->truth) { /* podkidnoy K-4: one rank, at most max(sizes) */
        value *sizes = get(legal, "sizes");
        int most = num(&sizes->items[sizes->len - 1]);
        for (i = 0; i < n && k < most; i++)
            if (hand[i][0] == hand[0][0]) play[k++] = hand[i];
    } else { /* prostoy P-5: the cheapest pair plus the cheapest other card, or one card */
        for (i = 0; i < n && k == 0 && has_size(legal, 3) && n >= 3; i++)
            for (j = i + 1; j < n && k == 0; j++)
                if (hand[i][0] == hand[j][0]) {
                    play[k++] = hand[i];
                    play[k++] = hand[j];
                    play[k++] = hand[i == 0 ? (j == 1 ? 2 : 1) : 0];
                }
        if (k == 0) play[k++] = hand[0];
    }
    printf("\"action\":\"attack\",\"cards\":");
    print_cards(play, k);
}

/* Podkidnoy K-7: cover attack cards i..n-1 with distinct beaters, cheapest total first. */
static int best_cost;
static const char *best[6], *current[6];

static void cover(value *to_beat, int i, int spent) {
    const char *beaters[MAX_CARDS];
    int n, b, j, used;
    if (best_cost >= 0 && spent >= best_cost) return;
    if (i == to_beat->len) {
        best_cost = spent;
        memcpy(best, current, sizeof best);
        return;
    }
    n = cards(get(&to_beat->items[i], "beaters"), beaters);
    for (b = 0; b < n; b++) {
        for (used = 0, j = 0; j < i; j++)
            if (strcmp(current[j], beaters[b]) == 0) used = 1;
        if (used) continue;
        current[i] = beaters[b];
        cover(to_beat, i + 1, spent + cost(beaters[b]));
    }
}

static void defend(value *legal) {
    value *to_beat = get(legal, "to_beat");
    const char *beaters[MAX_CARDS], *chosen[6];
    int i, b, j, used, k = 0, first = 1;
    if (get(legal, "must_cover_all")->truth) { /* podkidnoy: all or take */
        best_cost = -1;
        if (to_beat->len <= 6) cover(to_beat, 0, 0);
        if (best_cost < 0) {
            printf("\"action\":\"take\"");
            return;
        }
        for (i = 0; i < to_beat->len; i++) chosen[i] = best[i];
        k = to_beat->len;
    } else { /* prostoy P-8: each attack card its cheapest free beater, if any */
        for (i = 0; i < to_beat->len && i < 6; i++) {
            int n = cards(get(&to_beat->items[i], "beaters"), beaters);
            chosen[i] = NULL;
            for (b = 0; b < n && !chosen[i]; b++) {
                for (used = 0, j = 0; j < i; j++)
                    if (chosen[j] && strcmp(chosen[j], beaters[b]) == 0) used = 1;
                if (!used) chosen[i] = beaters[b];
            }
        }
        k = i;
    }
    printf("\"action\":\"defend\",\"pairs\":[");
    for (i = 0; i < k; i++) {
        if (!chosen[i]) continue;
        printf("%s[\"%s\",\"%s\"]", first ? "" : ",", str(get(&to_beat->items[i], "attack")),
               chosen[i]);
        first = 0;
    }
    printf("]");
}

static void add(value *legal) {
    const char *addable[MAX_CARDS], *play[MAX_CARDS];
    int n = cards(get(legal, "addable"), addable), room = num(get(legal, "room")), k = 0, i;
    for (i = 0; i < n && k < room; i++)
        if (addable[i][1] != trump && cost(addable[i]) <= 4) play[k++] = addable[i]; /* to T */
    if (k == 0) {
        printf("\"action\":\"pass\"");
        return;
    }
    printf("\"action\":\"add\",\"cards\":");
    print_cards(play, k);
}

/* ----- the main loop --------------------------------------------------------------------- */

/* One line of any length from stdin (without the newline), or NULL at the end. */
static char *read_line(void) {
    size_t cap = 4096, len = 0;
    char *line = malloc(cap);
    while (fgets(line + len, (int)(cap - len), stdin)) {
        len += strlen(line + len);
        if (len > 0 && line[len - 1] == '\n') return line;
        cap *= 2;
        line = realloc(line, cap);
    }
    if (len > 0) return line;
    free(line);
    return NULL;
}

int main(void) {
    char *line;
    while ((line = read_line()) != NULL) {
        value msg;
        const char *type;
        int end;
        at = line;
        if (!parse_value(&msg)) { /* not JSON: say so on stderr, never on stdout */
            fprintf(stderr, "c-sample: cannot parse: %.80s\n", line);
            free_value(&msg);
            free(line);
            continue;
        }
        type = str(get(&msg, "type"));
        if (strcmp(type, "hello") == 0) {
            printf("{\"type\":\"hello\",\"protocol\":1,\"name\":\"c-sample\",\"version\":\"1.0\"}\n");
        } else if (strcmp(type, "request") == 0) {
            const char *decision = str(get(&msg, "decision"));
            value *legal = get(&msg, "legal");
            trump = str(get(get(&msg, "observation"), "trump_suit"))[0];
            value *id = get(&msg, "id");
            printf("{\"type\":\"answer\",\"id\":%s,", id->kind == J_NUM ? id->text : "0");
            if (strcmp(decision, "attack") == 0) attack(legal);
            else if (strcmp(decision, "defend") == 0) defend(legal);
            else add(legal);
            printf("}\n");
        }
        fflush(stdout); /* every answer must reach the referee at once */
        end = strcmp(type, "match_end") == 0;
        free_value(&msg);
        free(line);
        if (end) break;
    }
    return 0;
}
