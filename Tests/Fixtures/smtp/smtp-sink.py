#!/usr/bin/python3
"""A real SMTP server on loopback for the tests (aiosmtpd, Debian's python3-aiosmtpd): STARTTLS required, then AUTH
required for one user. Each message it accepts is saved as JSON (envelope, TLS, the user
who logged in, the subject decoded, and each MIME part's type, file name, size, first bytes
and text) in a directory. Prints "listening PORT" and serves until its standard input closes.

    smtp-sink.py CERT KEY DIRECTORY USER PASSWORD
"""
import asyncio
import email
import email.header
import json
import os
import socket
import ssl
import sys
import threading

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

cert, key, directory, user, password = sys.argv[1:6]


class Handler:
    count = 0

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content)
        parts = []
        for part in message.walk():
            if part.is_multipart():
                continue
            payload = part.get_payload(decode=True) or b""
            text = payload.decode("utf-8", "replace") if part.get_content_maintype() == "text" else None
            parts.append({"type": part.get_content_type(), "filename": part.get_filename(), "size": len(payload),
                          "start": payload[:5].decode("latin-1"), "text": text})
        login = getattr(session, "auth_data", None)
        record = {
            "from": envelope.mail_from, "to": envelope.rcpt_tos, "tls": session.ssl is not None,
            "user": login if isinstance(login, str) else None,
            "subject": str(email.header.make_header(email.header.decode_header(message["Subject"]))),
            "headerTo": str(email.header.make_header(email.header.decode_header(message["To"]))),
            "messageID": message["Message-ID"], "parts": parts,
        }
        Handler.count += 1
        path = os.path.join(directory, f"message-{Handler.count}.json")
        with open(path + ".partial", "w") as file:
            json.dump(record, file)
        os.rename(path + ".partial", path)
        return "250 Message accepted"


def authenticate(server, session, envelope, mechanism, data):
    if isinstance(data, LoginPassword) and data.login.decode() == user and data.password.decode() == password:
        return AuthResult(success=True, auth_data=data.login.decode())
    return AuthResult(success=False, handled=False)


context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
context.load_cert_chain(cert, key)
# The listening socket is bound here, to port 0, and handed to the server: the port the
# kernel chose is the one served, with no moment in which another process could take it.
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
port = listener.getsockname()[1]
loop = asyncio.new_event_loop()
server = loop.run_until_complete(loop.create_server(
    lambda: SMTP(Handler(), hostname="127.0.0.1", tls_context=context, require_starttls=True,
                 authenticator=authenticate, auth_required=True, auth_require_tls=True),
    sock=listener))
serving = threading.Thread(target=loop.run_forever, daemon=True)
serving.start()
print(f"listening {port}", flush=True)
sys.stdin.read()
loop.call_soon_threadsafe(loop.stop)
serving.join()
