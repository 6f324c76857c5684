# mcstatus's clients on bytes in memory, for tests/minecraft_mcstatus.rs: no socket, the
# client's writes collected and the server's answer given as bytes.
#
# Input, mode "java": `java HOST PORT VERSION TOKEN`, then the hex of the server's bytes (a
# status response frame and a pong frame). Prints the hex of everything the client wrote, then
# `online max version protocol`, then the description as plain text.
# Mode "bedrock": `bedrock`, then the hex of an unconnected pong. Prints the hex of the
# client's unconnected ping, then `online max version protocol brand map gamemode`, then the
# MOTD as plain text.
import sys

from mcstatus._net.address import Address
from mcstatus._protocol.bedrock_client import BedrockClient
from mcstatus._protocol.io.connection import BaseSyncConnection
from mcstatus._protocol.java_client import JavaClient


class Memory(BaseSyncConnection):
    def __init__(self, incoming):
        self.incoming = bytearray(incoming)
        self.sent = bytearray()

    def read(self, length, /):
        if len(self.incoming) < length:
            raise OSError("the server's bytes ended")
        out = bytes(self.incoming[:length])
        del self.incoming[:length]
        return out

    def write(self, data, /):
        self.sent += data


lines = sys.stdin.read().split("\n")
args = lines[0].split()
if args[0] == "java":
    host, port, version, token = args[1], int(args[2]), int(args[3]), int(args[4])
    conn = Memory(bytes.fromhex(lines[1].strip()))
    client = JavaClient(conn, Address(host, port), version=version, ping_token=token)
    client.handshake()
    status = client.read_status()
    client.test_ping()  # raises unless the pong echoes the token
    assert not conn.incoming, "bytes left after the pong"
    print(conn.sent.hex())
    print(status.players.online, status.players.max, status.version.name, status.version.protocol)
    print(status.motd.to_plain())
else:
    print(BedrockClient.request_status_data.hex())
    status = BedrockClient.parse_response(bytes.fromhex(lines[1].strip()), 0.0)
    print(
        status.players.online,
        status.players.max,
        status.version.name,
        status.version.protocol,
        status.version.brand,
        status.map_name,
        status.gamemode,
    )
    print(status.motd.to_plain())
