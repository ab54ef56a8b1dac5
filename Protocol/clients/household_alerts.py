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
import argparse, json

from google.protobuf import json_format

from session import add_connection_arguments, connect, goodbye


def main():
    parser = argparse.ArgumentParser()
    add_connection_arguments(parser)
    parser.add_argument("--alerts-after", type=int, default=0)
    parser.add_argument("--count", type=int, default=1)
    args = parser.parse_args()

    # Section 4: the Hello, offering "alerts" with the last alert handled (section 22).
    frames, Envelope, ack, deadline = connect(args, {
        "role": "ROLE_HOUSEHOLD", "softwareVersion": "household_alerts.py 1",
        "displayName": "Independent household client", "features": ["alerts"], "alertsAfter": str(args.alerts_after),
    })
    if "alerts" not in ack.features:
        raise SystemExit(f"the primary did not accept alerts: {list(ack.features)}")

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

    goodbye(frames, Envelope)


if __name__ == "__main__":
    main()
