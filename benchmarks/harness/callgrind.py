"""Instruction counts from valgrind's callgrind, for profile_cell.py.

A callgrind output file (``--callgrind-out-file``) holds, per function, the
instructions executed in it ("self" cost, event ``Ir``) and in the calls it
made. Only the self costs and the total are needed here: the instructions a
cell costs per message are (total of a long run - total of a short run) /
(difference in messages), and the same subtraction per function gives the
functions that cost the most per message. Start-up, imports and the
connection set-up are in both runs and cancel.

The file format (valgrind's docs, "Callgrind Format Specification"):
``ob=``/``fl=``/``fn=`` set the current object, file and function, with
name compression - ``fn=(12) name`` defines id 12, ``fn=(12)`` reuses it;
``cob=``/``cfi=``/``cfn=`` name a call's target in the same id spaces;
a ``calls=`` line is followed by one cost line that is the call's
*inclusive* cost, not the caller's own; every other cost line (a position
then the event counts) is self cost of the current function.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

#: Which id space each name-setting key uses (object, file, function names).
_SPACE = {
    "ob": "ob",
    "cob": "ob",
    "fl": "fl",
    "fi": "fl",
    "fe": "fl",
    "cfl": "fl",
    "cfi": "fl",
    "fn": "fn",
    "cfn": "fn",
}


#: callgrind marks recursion levels ``fn'2``: one function, summed.
_RECURSION = re.compile(r"'\d+$")


@dataclass
class Profile:
    """One process's callgrind file: total Ir and self Ir per function."""

    total: int = 0
    #: "function [object file name]" -> self Ir.
    self_ir: Counter[str] = field(default_factory=Counter)
    #: "function [object file name]" -> times called (from every caller).
    calls: Counter[str] = field(default_factory=Counter)
    command: str = ""


def _name(value: str, space: dict[str, str]) -> str:
    """Resolve ``(id) name`` / ``(id)`` / ``name`` with name compression."""
    value = value.strip()
    if value.startswith("("):
        ident, _, rest = value[1:].partition(")")
        rest = rest.strip()
        if rest:
            space[ident] = rest
            return rest
        return space.get(ident, f"({ident})")
    return value


def parse(path: Path) -> Profile:
    """Read a callgrind output file (first event only: Ir)."""
    spaces: dict[str, dict[str, str]] = {"ob": {}, "fl": {}, "fn": {}}
    prof = Profile()
    obj, fn, cobj, cfn = "", "", "", ""
    call_cost_next = False
    summary = totals = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line or line[0] == "#":
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                if call_cost_next:  # inclusive cost of the call just named
                    call_cost_next = False
                    continue
                parts = line.split()
                if len(parts) > 1 and fn:
                    prof.self_ir[f"{_RECURSION.sub('', fn)} [{Path(obj).name or '?'}]"] += int(
                        parts[1]
                    )
                continue
            key, eq, value = line.partition("=")
            if eq and key in _SPACE:
                name = _name(value, spaces[_SPACE[key]])
                if key == "ob":
                    obj = cobj = name
                elif key == "fn":
                    fn = name
                elif key == "cob":
                    cobj = name
                elif key == "cfn":
                    cfn = name
                continue
            if eq and key == "calls":
                call_cost_next = True
                callee = f"{_RECURSION.sub('', cfn)} [{Path(cobj).name or '?'}]"
                prof.calls[callee] += int(value.split()[0])
                cobj = obj  # cob= applies to one call only
                continue
            key, colon, value = line.partition(":")
            if not colon:
                continue
            if key == "summary":
                summary = int(value.split()[0])
            elif key == "totals":
                totals = int(value.split()[0])
            elif key == "cmd":
                prof.command = value.strip()
    prof.total = totals or summary or sum(prof.self_ir.values())
    return prof


#: libc's system-call wrappers worth counting, by what they say about a run:
#: how many messages a read or write carried, how often a thread slept or
#: woke another (futex: condition variables, the interpreter lock).
SYSCALLS = {
    "send": "send",
    "sendto": "send",
    "sendmsg": "send",
    "__libc_sendmsg": "send",
    "recv": "recv",
    "recvfrom": "recv",
    "recvmsg": "recv",
    "__libc_recvmsg": "recv",
    "read": "read",
    "__libc_read": "read",
    "write": "write",
    "__libc_write": "write",
    "poll": "poll",
    "__poll": "poll",
    "ppoll": "poll",
    "epoll_wait": "epoll_wait",
    "select": "select",
    "__futex_abstimed_wait_common": "futex wait",
}


@dataclass
class PerMessage:
    """What one message costs in one process: long run - short run, divided."""

    total: float
    #: function -> self Ir per message, largest first.
    functions: list[tuple[str, float]]
    #: system call (libc wrapper, grouped) -> calls per 1,000 messages.
    syscalls: dict[str, float]


def per_message(long: Profile, short: Profile, messages: int, top: int = 15) -> PerMessage:
    """Ir per message of `long` beyond `short`, which sent `messages` fewer."""
    if messages <= 0:
        raise ValueError("the long run must move more messages than the short one")
    delta = Counter(long.self_ir)
    delta.subtract(short.self_ir)
    funcs = [(name, ir / messages) for name, ir in delta.most_common(top) if ir > 0]
    calls = Counter(long.calls)
    calls.subtract(short.calls)
    sys: Counter[str] = Counter()
    for name, n in calls.items():
        fn, _, obj = name.partition(" [")
        group = SYSCALLS.get(fn.split("@")[0])
        if group and obj.startswith("libc"):
            sys[group] += n
    per_k = {k: round(1000 * v / messages, 2) for k, v in sorted(sys.items()) if v > 0}
    return PerMessage((long.total - short.total) / messages, funcs, per_k)
