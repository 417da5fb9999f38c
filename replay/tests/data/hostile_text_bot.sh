#!/bin/sh
# A bot whose text tries to drive the organiser's terminal: terminal sequences (ESC, BEL, CR, a
# bidi override) in its hello name and version, on stderr at its hello and at each request, and
# after N requests (default 3; 0: never) a raw answer line full of them (malformed). Otherwise it
# plays as builtin:random. Usage: sh hostile_text_bot.sh DURAK_EXECUTABLE [N]
durak="$1"; after="${2:-3}"; n=0
exec 3>&1 # the bot's own stdout: the loop's goes to the random bot
printf 'starting \033]0;pwned\007\033[2J\r\342\200\256\n' >&2
while read -r line; do
  case "$line" in
    *'"type":"hello"'*)
      printf '%s\n' '{"type":"hello","protocol":1,"name":"evil\u001b]0;pwned\u0007\u202eman","version":"1\u001b[2J\r"}' >&3
      continue;;
    *'"type":"request"'*)
      n=$((n + 1))
      printf 'thinking \033]0;pwned\007 \033[2J\r\342\200\256 about request %s\n' "$n" >&2
      if [ "$after" -gt 0 ] && [ "$n" -gt "$after" ]; then
        printf '\033[2J\033]0;pwned\007{oops\r\342\200\256\n' >&3
        continue
      fi;;
  esac
  printf '%s\n' "$line"
done | "$durak" bot random
