# dnspython on DNS messages, for tests/dns_dnspython.rs.
#
# Mode "make" (first line of input): prints messages dnspython builds, one a line:
# `<hex of to_wire()> <description>`, or `<hex> compressed` for one whose names dnspython
# compressed. Mode "read": each further input line is a message's hex; prints its description
# as dnspython parses it. A description is one line, built the same way by the Rust test:
# id, the flags word, then each section's rows.
import sys

import dns.edns
import dns.flags
import dns.message
import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.rrset


def rows(section):
    out = []
    for rrset in section:
        for rd in rrset:
            data = rd.to_wire() if hasattr(rd, "to_wire") else b""
            out.append(f"{rrset.name.to_text()} {int(rrset.rdtype)} {int(rrset.rdclass)} {rrset.ttl} {data.hex()}")
    return out


def questions(msg):
    return [f"{r.name.to_text()} {int(r.rdtype)} {int(r.rdclass)}" for r in msg.question]


def describe(msg):
    additional = rows(msg.additional)
    if msg.opt is not None:
        # The OPT pseudo-record: its class is the payload size, its TTL the extended flags.
        opt = msg.opt
        data = b"".join(o.to_wire() for o in opt[0].options) if len(opt) else b""
        additional.append(f". 41 {int(opt.rdclass)} {opt.ttl} {data.hex()}")
    return " | ".join(
        [
            f"id={msg.id} flags={msg.flags:#06x}",
            "q=" + ";".join(questions(msg)),
            "an=" + ";".join(rows(msg.answer)),
            "ns=" + ";".join(rows(msg.authority)),
            "ar=" + ";".join(additional),
        ]
    )


def make():
    out = []
    q = dns.message.make_query("www.example.com", "A", id=0xBEEF)
    q.flags |= dns.flags.AD
    out.append(q)
    # Four questions, names sharing no suffix (so nothing is compressed), with EDNS.
    four = dns.message.Message(id=7)
    four.flags = dns.flags.RD | dns.flags.CD
    for name, rdtype in [("a.example", "A"), ("b.test", "AAAA"), ("c.invalid", "TXT"), ("snow.fight", "SRV")]:
        four.find_rrset(four.question, dns.name.from_text(name), dns.rdataclass.IN, dns.rdatatype.from_text(rdtype), create=True)
    four.use_edns(0, payload=1232)
    out.append(four)
    # A response whose answer names another name (no suffix shared with the question).
    r = dns.message.make_response(q)
    r.flags |= dns.flags.AA | dns.flags.RA
    r.set_rcode(3)
    r.answer.append(dns.rrset.from_text("alias.test.", 300, "IN", "A", "192.0.2.1"))
    r.authority.append(dns.rrset.from_text("ns.invalid.", 60, "IN", "TXT", '"snow"'))
    out.append(r)
    for msg in out:
        print(msg.to_wire().hex(), describe(msg))
    # The same response, its answer about the question's own name: dnspython compresses it.
    c = dns.message.make_response(q)
    c.answer.append(dns.rrset.from_text("www.example.com.", 300, "IN", "A", "192.0.2.1"))
    print(c.to_wire().hex(), "compressed")


lines = sys.stdin.read().split("\n")
if lines[0] == "make":
    make()
else:
    for line in lines[1:]:
        if line.strip():
            print(describe(dns.message.from_wire(bytes.fromhex(line.strip()))))
