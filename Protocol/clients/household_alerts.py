"""A household device's alerts, from Protocol/ alone: Python's ssl and Google's protobuf
runtime, no CareSync code. It connects to a primary with a paired household identity
(section 2: TLS 1.3, the primary pinned by fingerprint), says Hello offering "alerts"
(sections 3, 4, 22), and prints each dose alert it receives as one JSON line (protobuf's
JSON mapping), newest first as they come, until it has COUNT or TIMEOUT passes; then it
says Goodbye. Other messages (contexts, pings) are read and left alone.

    python3 household_alerts.py DESCRIPTORS --port PORT --identity identity.pem \
        --primary FINGERPRINT [--host 127.0.0.1] [--alerts-after N] [--count 1] [--timeout 30]

DESCRIPTORS is caresync.proto compiled by `protoc --include_imports --descriptor_set_out`.
Exit status: 0 with COUNT alerts, 1 otherwise (the reason on stderr).
"""
import argparse, hashlib, json, socket, ssl, struct, sys, time

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory


def envelope_class(descriptors):
    files = descriptor_pb2.FileDescriptorSet()
    with open(descriptors, "rb") as f:
        files.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for proto in files.file:
        pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("caresync.v1.Envelope"))


def pem_certificate_der(path):
    """The DER bytes of the CERTIFICATE block of identity.pem (section 2)."""
    text = open(path).read()
    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    body = text[text.index(begin) + len(begin):text.index(end)]
    return ssl.PEM_cert_to_DER_cert(begin + body + end + "\n")


class Frames:
    """Section 3: a 4-byte big-endian length, then one Envelope."""

    def __init__(self, sock, envelope):
        self.sock, self.envelope, self.buffer = sock, envelope, b""

    def send(self, message):
        payload = message.SerializeToString()
        self.sock.sendall(struct.pack(">I", len(payload)) + payload)

    def receive(self, deadline):
        while True:
            if len(self.buffer) >= 4:
                (length,) = struct.unpack(">I", self.buffer[:4])
                if length > 1 << 20:
                    raise SystemExit(f"a frame of {length} bytes: above the limit")
                if len(self.buffer) >= 4 + length:
                    payload, self.buffer = self.buffer[4:4 + length], self.buffer[4 + length:]
                    message = self.envelope()
                    message.ParseFromString(payload)
                    return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            if not chunk:
                raise SystemExit("the primary closed the connection")
            self.buffer += chunk


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("descriptors")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--identity", required=True)
    parser.add_argument("--primary", required=True, help="the primary's fingerprint, pinned")
    parser.add_argument("--alerts-after", type=int, default=0)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args()
    Envelope = envelope_class(args.descriptors)

    # Section 2: TLS 1.3 only, both certificates presented, no CA: the primary's is pinned.
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.load_cert_chain(args.identity)
    own = hashlib.sha256(pem_certificate_der(args.identity)).hexdigest()
    sock = context.wrap_socket(socket.create_connection((args.host, args.port), timeout=10))
    seen = hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()
    if seen != args.primary:
        raise SystemExit(f"the primary presented {seen}, not the pinned {args.primary}")
    frames = Frames(sock, Envelope)

    # Section 4: the Hello, offering "alerts" with the last alert handled (section 22).
    frames.send(json_format.ParseDict({"hello": {
        "protocolVersions": [1], "nodeId": own, "role": "ROLE_HOUSEHOLD", "softwareVersion": "household_alerts.py 1",
        "displayName": "Independent household client", "features": ["alerts"], "alertsAfter": str(args.alerts_after),
    }}, Envelope()))

    deadline = time.monotonic() + args.timeout
    answer = frames.receive(deadline)
    if answer is None or answer.WhichOneof("body") != "hello_ack":
        raise SystemExit(f"no HelloAck: {answer}")
    if "alerts" not in answer.hello_ack.features:
        raise SystemExit(f"the primary did not accept alerts: {list(answer.hello_ack.features)}")

    received = 0
    while received < args.count:
        message = frames.receive(deadline)
        if message is None:
            raise SystemExit(f"{received} of {args.count} alerts within {args.timeout} s")
        if message.WhichOneof("body") == "error":
            raise SystemExit(f"the primary sent an Error: {message.error}")
        if message.WhichOneof("body") != "dose_alerts":
            continue
        for alert in message.dose_alerts.alerts:
            print(json.dumps(json_format.MessageToDict(alert)), flush=True)
            received += 1

    frames.send(json_format.ParseDict({"goodbye": {"reason": "GOODBYE_REASON_QUIT"}}, Envelope()))
    sock.close()


if __name__ == "__main__":
    main()
