"""A companion's completion, from Protocol/ alone: Python's ssl and Google's protobuf runtime,
no CareSync code. It connects to a primary with a paired identity (section 2), says Hello
as ROLE (section 4), sends one Completion (section 11) and prints the primary's answer to
it, a CompletionReply or an Error, as one JSON line in protobuf's JSON mapping with every
field shown (so that UNSPECIFIED and 0 are seen); then it says Goodbye.

    python3 complete.py DESCRIPTORS --port PORT --identity identity.pem --primary FINGERPRINT \
        --role ROLE_WATCH --activity ID --day YYYY-MM-DD --occurrence N [--message-id ID] [--timeout 30]

DESCRIPTORS is caresync.proto compiled by `protoc --include_imports --descriptor_set_out`.
Exit status: 0 with an answer, 1 otherwise (the reason on stderr).
"""
import argparse, json, time, uuid

from google.protobuf import json_format

from session import add_connection_arguments, connect, goodbye


def every_field(message):
    """The message in protobuf's JSON mapping, with fields at their defaults shown too."""
    try:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except TypeError:  # protobuf before 5.26
        return json_format.MessageToDict(message, including_default_value_fields=True)


def main():
    parser = argparse.ArgumentParser()
    add_connection_arguments(parser)
    parser.add_argument("--role", required=True, help="ROLE_WATCH, ROLE_WIDGET or ROLE_HOUSEHOLD, as paired")
    parser.add_argument("--activity", required=True)
    parser.add_argument("--day", required=True)
    parser.add_argument("--occurrence", type=int, required=True)
    parser.add_argument("--message-id", default=str(uuid.uuid4()))
    args = parser.parse_args()

    frames, Envelope, _, deadline = connect(args, {
        "role": args.role, "softwareVersion": "complete.py 1", "displayName": "Independent client",
    })
    # Section 11: a message id of its own, the event, its state, and when the person acted.
    frames.send(json_format.ParseDict({"completion": {
        "messageId": args.message_id, "activityId": args.activity, "day": args.day, "occurrence": args.occurrence,
        "state": "EVENT_STATE_COMPLETED", "deviceTimeMs": str(int(time.time() * 1000)),
    }}, Envelope()))
    while True:
        message = frames.receive(deadline)
        if message is None:
            raise SystemExit(f"no answer to the completion within {args.timeout} s")
        body = message.WhichOneof("body")
        answer = message.completion_reply if body == "completion_reply" else message.error if body == "error" else None
        if answer is not None:
            print(json.dumps({body: every_field(answer)}), flush=True)
            break
    goodbye(frames, Envelope)


if __name__ == "__main__":
    main()
