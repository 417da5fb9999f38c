# The sample random bot (sample-bots/python/random_bot.py) with the notes a bot author keeps on
# stderr: a line at start-up, one every 10th request, one after the game.
import json, os, sys
sys.dont_write_bytecode = True  # no __pycache__ in sample-bots/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../sample-bots/python"))
import random_bot

print("notes-bot 1.0: starting, pid", os.getpid(), file=sys.stderr, flush=True)
n = 0
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("type")
    if t == "hello":
        random_bot.send({"type": "hello", "protocol": 1, "name": "notes-py", "version": "1.0"})
    elif t == "event" and m["event"]["kind"] == "dealt_hand":
        random_bot.random.seed(line)
    elif t == "request":
        n += 1
        a = random_bot.answer(m)
        if n % 10 == 0:
            print(f"request {m['id']}: {m['decision']} with {len(m['observation']['hand'])} cards -> {a['action']}",
                  file=sys.stderr, flush=True)
        random_bot.send(a)
    elif t == "game_end":
        print(f"game over after {n} requests: loser {m.get('loser')}", file=sys.stderr, flush=True)
    elif t == "match_end":
        break
