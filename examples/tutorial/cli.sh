# The same patterns from the shell, with the purezmq command (docs/cli.md).
set -eu
dir="$(mktemp -d)"
endpoint="ipc://$dir/tutorial"

# A PULL socket that prints two messages, in the background...
purezmq recv --bind "$endpoint" --count 2 &
# ...and a PUSH socket that sends each line of its input (a TAB splits frames).
printf 'hello\nmulti\tpart\n' | purezmq send --connect "$endpoint"
wait

# Request-reply: a REP socket answering "pong" once, and a REQ asking.
purezmq recv --type REP --bind "$endpoint" --count 1 --reply pong > /dev/null &
purezmq send --type REQ --connect "$endpoint" --message ping
wait
rm -r "$dir"
