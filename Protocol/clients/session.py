"""What every client written from Protocol/ alone needs: the Envelope class from the compiled
schema, the length-prefixed frames of section 3, and a TLS 1.3 connection that pins the
primary's fingerprint and says Hello (sections 2 and 4). Python's ssl and Google's protobuf
runtime, no CareSync code.
"""
import hashlib, socket, ssl, struct, time

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


def add_connection_arguments(parser):
    """The arguments every client takes: where the primary is, and who this device is."""
    parser.add_argument("descriptors")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--identity", required=True)
    parser.add_argument("--primary", required=True, help="the primary's fingerprint, pinned")
    parser.add_argument("--timeout", type=float, default=30)


def connect(args, hello):
    """Connects as section 2 says and sends `hello` (the Hello's fields, in protobuf's JSON
    mapping, with nodeId filled in). Returns the frames, the Envelope class, the HelloAck and
    the deadline `args.timeout` gives; a refused handshake ends the client."""
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
    frames.send(json_format.ParseDict({"hello": dict(hello, nodeId=own, protocolVersions=[1])}, Envelope()))
    deadline = time.monotonic() + args.timeout
    answer = frames.receive(deadline)
    if answer is None or answer.WhichOneof("body") != "hello_ack":
        raise SystemExit(f"no HelloAck: {answer}")
    return frames, Envelope, answer.hello_ack, deadline


def goodbye(frames, Envelope):
    """Section 4's orderly end: Goodbye, then close."""
    frames.send(json_format.ParseDict({"goodbye": {"reason": "GOODBYE_REASON_QUIT"}}, Envelope()))
    frames.sock.close()
