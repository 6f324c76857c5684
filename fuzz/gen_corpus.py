#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the conformance vectors.

    python3 fuzz/gen_corpus.py [VECTORS_DIR]     # default: the repository's vectors/

Seeds go to fuzz/corpus/<target>/ (git-ignored), one file per seed, named by content hash, so
running it twice changes nothing. The vector files themselves are only read.

- decode_messages, roundtrip: the bytes of every message of messages.json and every byte
  string of invalid.json.
- endpoint: small programs in the target's operation format (see fuzz_targets/endpoint.rs):
  a real handshake and exchange, then each header of header.json sent as a chunk from the
  client's address and from a stranger's, and the message vectors as chunk payloads.
- extended: programs of fuzz_targets/extended.rs for both agreements: traffic of every
  delivery mode, the message vectors as data frames of every mode, ACK ranges, ordered and
  semi-ordered frames, a compressed frame, a two-chunk message, a close.
- secure: programs of fuzz_targets/secure.rs: the headers and messages as authentic payloads
  (hopnet datagrams under netcode), deliveries both ways, time passing, copies of real packets
  changed and replayed, requests with valid tokens.
"""

import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def write(target, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# Operations of fuzz_targets/endpoint.rs.
def raw(addr, data):
    n = len(data)
    return bytes([0, addr, n >> 8, n & 0xFF]) + data


def chunk(addr, header, size_class, fill=0x41):
    # size_class: 0 empty, 1 504 bytes, 3 505 bytes (malformed)
    return bytes([1, addr]) + header + bytes([size_class, fill])


def big(addr, n, header):
    return bytes([2, addr, n >> 8, n & 0xFF]) + header


def init(addr, salt):
    return bytes([3, addr]) + salt


def answer(addr, k=0):
    return bytes([4, addr, k])


def wait(ms):
    return bytes([5, ms >> 8, ms & 0xFF])


def pump(rounds=4):
    return bytes([6, rounds - 1])


def client_send(reliable, length, fill=0x42):
    if length == 504:
        body = bytes([1, fill])
    elif length < 256:
        body = bytes([0, length, fill])
    else:
        body = bytes([2, length >> 8, length & 0xFF, fill])
    return bytes([7, 0 if reliable else 1]) + body


def server_send(addr, reliable, length, fill=0x43):
    return bytes([8, addr]) + client_send(reliable, length, fill)[1:]


def poll():
    return bytes([10])


def close(who):
    return bytes([11, who])


HANDSHAKE = pump() + wait(10) + pump() + wait(10) + pump() + poll()


# Operations of fuzz_targets/extended.rs (after its first byte, the agreement: 1 every
# extension, 0 none).
def x_frames(frames):
    n = len(frames)
    return bytes([0, n >> 8, n & 0xFF]) + frames


def x_raw(data):
    n = len(data)
    return bytes([1, n >> 8, n & 0xFF]) + data


def x_wait(ms):
    return bytes([2, ms >> 8, ms & 0xFF])


def x_send(mode, half_len):
    return bytes([3, mode, half_len >> 8, half_len & 0xFF])


def data_frame(seq, mode, data, chunk=0, fin=True, lz4=False, index=None, after=None):
    ty = 0x40 | (mode << 1) | (0x20 if fin else 0) | (0x10 if lz4 else 0) | (1 if chunk else 0)
    out = bytes([ty, seq >> 8, seq & 0xFF])
    if chunk:
        out += bytes([chunk])
    n = len(data)
    out += bytes([n]) if n < 0x80 else bytes([0x80 | (n >> 8), n & 0xFF])
    if chunk == 0 and mode in (2, 3, 4):
        i = index or 0
        out += bytes([i >> 8, i & 0xFF])
        if mode == 3:
            a = i if after is None else after
            out += bytes([a >> 8, a & 0xFF])
    return out + data


def ack_frame(ranges, delay=100):
    out = bytes([0x03, delay >> 8, delay & 0xFF, len(ranges)])
    for seq, extra, first, last in ranges:
        out += bytes([seq >> 8, seq & 0xFF, extra >> 8, extra & 0xFF, first, last])
    return out


# Operations of fuzz_targets/secure.rs: each is an address (0 the real client) then an op.
def s_raw(addr, data):
    n = len(data)
    return bytes([addr, 0, n >> 8, n & 0xFF]) + data


def s_deliver(up, k=7):
    return bytes([0, 1 if up else 2, k])


def s_wait(ms):
    return bytes([0, 4, ms >> 8, ms & 0xFF])


def s_payload(data):
    n = len(data)
    return bytes([0, 5, n >> 8, n & 0xFF]) + data


def s_mutate(addr, index, kind, *args):
    return bytes([addr, 6, index, kind]) + bytes(args)


def s_replay(addr, index, down):
    return bytes([addr, 7, index, 1 if down else 0])


def s_request(addr, client_id, expire, timeout):
    return bytes([addr, 9, client_id, expire, timeout])


S_PUMP = s_deliver(True) + s_deliver(False) + s_deliver(True) + s_deliver(False)


def main():
    vectors = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "vectors")
    with open(os.path.join(vectors, "messages.json")) as f:
        messages = [bytes.fromhex(v["hex"]) for v in json.load(f)]
    with open(os.path.join(vectors, "invalid.json")) as f:
        invalid = [bytes.fromhex(v["hex"]) for v in json.load(f)]
    with open(os.path.join(vectors, "header.json")) as f:
        headers = [bytes.fromhex(v["hex"]) for v in json.load(f)]

    for m in messages + invalid:
        write("decode_messages", m)
        write("roundtrip", m)

    # A real exchange both ways, reliable and unreliable, then a close.
    write("endpoint", HANDSHAKE + client_send(True, 5) + client_send(False, 600) + pump()
          + server_send(0, True, 1200) + server_send(0, False, 3) + pump() + wait(300)
          + pump() + poll() + close(0) + pump() + poll())
    # A stranger's handshake done by hand, then traffic from it.
    write("endpoint", init(1, b"\x01\x02\x03\x04") + answer(1) + poll()
          + chunk(1, b"\x05\x00\x00\x00", 0) + poll())
    for h in headers:
        write("endpoint", HANDSHAKE + chunk(0, h, 0) + chunk(0, h, 1) + chunk(1, h, 0) + pump()
              + poll())
        write("endpoint", HANDSHAKE + raw(0, h) + raw(1, h) + raw(2, h) + pump() + poll())
    for m in messages:
        write("endpoint", HANDSHAKE + raw(0, b"\x05\x00\x00\x07" + m) + pump() + poll())
    # Datagrams of 0, 1, 3, 5 and 65,507 bytes, from the client and from a stranger.
    for n in (0, 1, 3, 5):
        write("endpoint", HANDSHAKE + raw(0, b"\x01" * n) + raw(1, b"\x01" * n) + pump() + poll())
    write("endpoint", HANDSHAKE + big(0, 65507, b"\x05\x00\x00\x09") + big(1, 65507, b"\x05\x00\x00\x09")
          + pump() + poll())
    # Reliable chunks never finished, for many sequences.
    flood = b"".join(chunk(0, bytes([1, 0, s >> 8, s & 0xFF]), 1) for s in range(0, 600, 3))
    write("endpoint", HANDSHAKE + flood + client_send(True, 20) + pump() + wait(500) + pump()
          + poll())
    # The extended wire: traffic of every mode both ways, then frames of each type.
    for agreement in (b"\x01", b"\x00"):
        traffic = b"".join(x_send(mode, 40 + 300 * mode) for mode in range(6))
        write("extended", agreement + traffic + x_wait(50) + x_wait(1500))
        for m in messages[:8]:
            for mode in range(6):
                write("extended", agreement + x_frames(data_frame(900, mode, m, index=3)))
        write("extended", agreement + x_frames(ack_frame([(0, 3, 0, 255), (5, 0, 1, 2)])))
        write("extended", agreement + x_frames(b"\x00\x01" + data_frame(7, 3, b"x", index=1, after=0)))
        write("extended", agreement + x_frames(data_frame(8, 4, b"y" * 200, index=2) + data_frame(9, 0, b"z")))
        write("extended", agreement + x_frames(data_frame(10, 0, b"\x00\x00\x10\x00\xff", lz4=True)))
        write("extended", agreement + x_frames(data_frame(11, 2, b"w" * 493, fin=False, index=4)
                                               + data_frame(11, 2, b"v", chunk=1)))
        write("extended", agreement + x_raw(b"\xe2\x01\x00\x00\x00") + x_frames(b"\x02"))
    # Secure mode: hopnet's datagrams under netcode, forged and replayed packets, requests.
    for h in headers:
        write("secure", s_payload(h) + S_PUMP + s_mutate(0, 0, 2, 0x16) + s_replay(0, 1, False)
              + s_replay(1, 1, True) + S_PUMP)
    for m in messages:
        write("secure", s_payload(b"\x05\x00\x00\x07" + m) + S_PUMP + s_wait(150) + S_PUMP)
    write("secure", s_payload(b"\x08\x00\x00\x00") + S_PUMP + s_wait(200) + S_PUMP)
    write("secure", s_wait(2000) + S_PUMP + s_wait(9000) + S_PUMP + s_wait(9000))
    for addr in range(4):
        write("secure", s_request(addr, 3, 1, 3) + S_PUMP + s_request(addr, 3, 0, 0)
              + s_mutate(addr, 0, 0, 0, 40, 1) + s_mutate(addr, 2, 1, 0, 30) + S_PUMP)
        write("secure", s_raw(addr, b"\x26\x40\x9c" + bytes(16)) + s_raw(addr, b"\x08\x00\x00\x01"))
    print("corpora written under", os.path.join(HERE, "corpus"))


if __name__ == "__main__":
    main()
