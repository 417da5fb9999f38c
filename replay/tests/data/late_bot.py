import json, sys, time
mode = sys.argv[1]; after = int(sys.argv[2])
def out(o): print(json.dumps(o), flush=True)
n = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello": out({"type":"hello","protocol":1,"name":"late-"+mode,"version":"1"})
    if m["type"] != "request": continue
    n += 1
    if n > after:
        if mode == "garbage": print("{oops", flush=True)
        elif mode == "sleep": time.sleep(3)
        elif mode == "crash": sys.exit(7)
        elif mode == "illegal": out({"type":"answer","id":m["id"],"action":"attack","cards":["6C","7D"]})
        continue
    l = m["legal"]; d = m["decision"]
    if d == "attack": out({"type":"answer","id":m["id"],"action":"attack","cards":[l["hand"][0]]})
    elif d == "defend":
        if m["observation"]["variant"] == "prostoy": out({"type":"answer","id":m["id"],"action":"defend","pairs":[]})
        else: out({"type":"answer","id":m["id"],"action":"take"})
    else: out({"type":"answer","id":m["id"],"action":"pass"})
