#!/usr/bin/env python3
"""A real OpenID Provider on loopback, and a real client signing a user in through it.

Used by Scripts/oidc-provider-integration.sh, which judges what the provider issues with
`policy-run`. The provider is django-oauth-toolkit (PyPI, pinned in
Scripts/install-dependencies.sh) on Django, served by waitress on 127.0.0.1; the client is
Authlib's OAuth2Session, and the user's browser a requests session that logs in and approves
the consent form as a person would.

    oidc_provider.py keygen FILE                       an RSA-2048 private key (PEM)
    oidc_provider.py setup DIR --redirect-uri URI      database, test user, two applications
    oidc_provider.py serve DIR --port P --key FILE [--inactive-key FILE]...
    oidc_provider.py flow DIR --issuer URL [--hybrid] [--deny] --out FILE

`setup` writes DIR/clients.json (client IDs and secrets, the user's name and password);
`serve` prints "provider: serving URL" once its socket listens; `flow` writes one sign-in's
results (the callback URL the browser was sent to, state, nonce, code, tokens) as JSON.
"""
import argparse
import json
import os
import secrets
import sys
import threading
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

TIMEOUT = 10  # seconds, for every HTTP call the browser or the client makes

LOGIN_TEMPLATE = """<!DOCTYPE html><html><body>
<form id="login" method="post">{% csrf_token %}{{ form.as_p }}
<input type="hidden" name="next" value="{{ next }}"><input type="submit" value="Log in"></form>
</body></html>"""


def configure(state_dir, key_files=(), inactive_key_files=()):
    """Django and django-oauth-toolkit, configured in code: OIDC on, RS256 with the given keys."""
    import django
    from django.conf import settings

    def read(path):
        with open(path) as file:
            return file.read()

    settings.configure(
        DEBUG=False,
        SECRET_KEY=read(os.path.join(state_dir, "django-secret")),
        ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "oauth2_provider",
        ],
        MIDDLEWARE=[
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
        ],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3",
                               "NAME": os.path.join(state_dir, "provider.sqlite3")}},
        TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "OPTIONS": {
                "loaders": [
                    ("django.template.loaders.locmem.Loader", {"registration/login.html": LOGIN_TEMPLATE}),
                    "django.template.loaders.app_directories.Loader",
                ],
                "context_processors": ["django.template.context_processors.request"],
            },
        }],
        STATIC_URL="/static/",
        # Django's PBKDF2 at 10,000 rounds instead of 1,000,000: the user's password and the
        # clients' secrets are hashed at setup and checked at every login and token request, and
        # each full-strength hash costs seconds on a busy two-core machine.
        PASSWORD_HASHERS=[f"{__name__}.TestPBKDF2PasswordHasher"],
        USE_TZ=True,
        LOGIN_URL="/accounts/login/",
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        OAUTH2_PROVIDER={
            "OIDC_ENABLED": True,
            "OIDC_RSA_PRIVATE_KEY": read(key_files[0]) if key_files else "",
            # Keys retired from signing but still published in the JWKS (its rotation support).
            "OIDC_RSA_PRIVATE_KEYS_INACTIVE": [read(path) for path in inactive_key_files],
            "PKCE_REQUIRED": True,
            "SCOPES": {"openid": "OpenID Connect", "profile": "Your profile"},
            # RFC 9700 as the provider's next major release will default to it: S256 only, no
            # implicit or password grants, and the RFC 9207 `iss` in authorization responses.
            "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
            "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
            "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
            "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
            "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
        },
    )
    django.setup()
    from django.contrib.auth.hashers import PBKDF2PasswordHasher
    from django.contrib.auth.views import LoginView

    global TestPBKDF2PasswordHasher

    class TestPBKDF2PasswordHasher(PBKDF2PasswordHasher):
        iterations = 10_000

    from django.urls import include, path

    global urlpatterns
    urlpatterns = [
        path("accounts/login/", LoginView.as_view()),
        path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    ]


def keygen(args):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    with open(args.file, "wb") as file:
        file.write(pem)


def setup(args):
    """The provider's database: its tables, a user, and the applications the client registered."""
    with open(os.path.join(args.dir, "django-secret"), "w") as file:
        file.write(secrets.token_urlsafe(48))
    configure(args.dir)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oauth2_provider.models import get_application_model

    call_command("migrate", verbosity=0, interactive=False)
    password = secrets.token_urlsafe(16)
    user = get_user_model().objects.create_user("alice", "alice@example.com", password)
    application = get_application_model()
    clients = {"username": "alice", "password": password, "user_id": str(user.pk),
               "redirect_uri": args.redirect_uri}
    for name, grant in (("code", application.GRANT_AUTHORIZATION_CODE),
                        ("hybrid", application.GRANT_OPENID_HYBRID)):
        client_id, client_secret = secrets.token_urlsafe(24), secrets.token_urlsafe(32)
        # The secret is stored hashed: what the client keeps is the plain text written here.
        application.objects.create(
            name=f"policy-engine integration ({name})", user=user, client_id=client_id,
            client_secret=client_secret, client_type=application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=grant, redirect_uris=args.redirect_uri,
            algorithm=application.RS256_ALGORITHM, skip_authorization=False)
        clients[name] = {"client_id": client_id, "client_secret": client_secret}
    with open(os.path.join(args.dir, "clients.json"), "w") as file:
        json.dump(clients, file, indent=2)


def serve(args):
    configure(args.dir, [args.key], args.inactive_key)
    from django.core.wsgi import get_wsgi_application
    from waitress import create_server

    server = create_server(get_wsgi_application(), host="127.0.0.1", port=args.port, threads=4,
                           channel_timeout=10)
    print(f"provider: serving http://127.0.0.1:{args.port}/o", flush=True)
    server.run()


class Forms(HTMLParser):
    """Each <form> of a page: its id and its <input> names and values (what a browser submits)."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"id": attrs.get("id"), "inputs": []})
        elif tag == "input" and self.forms and attrs.get("name"):
            self.forms[-1]["inputs"].append((attrs["name"], attrs.get("value") or "", attrs.get("type")))


def page_form(response, form_id):
    parser = Forms()
    parser.feed(response.text)
    for form in parser.forms:
        if form["id"] == form_id:
            return form["inputs"]
    sys.exit(f"flow: {response.url} answered {response.status_code} without the form '{form_id}':\n"
             f"{response.text[:2000]}")


def flow(args):
    """One sign-in, as a browser and a client do it, against the provider at args.issuer."""
    import requests
    from authlib.common.security import generate_token
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.oauth2.rfc7636 import create_s256_code_challenge

    with open(os.path.join(args.dir, "clients.json")) as file:
        clients = json.load(file)
    client = clients["hybrid" if args.hybrid else "code"]
    redirect_uri = clients["redirect_uri"]
    configuration = requests.get(args.issuer + "/.well-known/openid-configuration", timeout=TIMEOUT)
    configuration.raise_for_status()
    metadata = configuration.json()

    # The client's redirect URI: a server of its own that records what the browser brought.
    arrived = []

    class Callback(BaseHTTPRequestHandler):
        def do_GET(self):
            arrived.append(self.path)
            body = b"signed in\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    callback_server = HTTPServer(("127.0.0.1", urlsplit(redirect_uri).port), Callback)
    threading.Thread(target=callback_server.serve_forever, daemon=True).start()

    session = OAuth2Session(client["client_id"], client["client_secret"], scope="openid profile",
                            redirect_uri=redirect_uri, code_challenge_method="S256",
                            token_endpoint_auth_method="client_secret_basic")
    verifier, nonce = generate_token(64), generate_token(32)
    extra = {}
    response_type = "code"
    if args.hybrid:
        # Authlib adds the PKCE challenge for response_type=code only; the hybrid flow sends it too.
        response_type = "code id_token"
        extra = {"code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256"}
    url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier,
                                                  nonce=nonce, response_type=response_type, **extra)

    # The browser: to the authorization endpoint, sent on to the login page, logs in, comes back
    # to the consent page, and approves (or cancels).
    browser = requests.Session()
    page = browser.get(url, timeout=TIMEOUT)
    login = {name: value for name, value, _ in page_form(page, "login")}
    login.update(username=clients["username"], password=clients["password"])
    page = browser.post(page.url, data=login, timeout=TIMEOUT)
    consent = {name: value for name, value, kind in page_form(page, "authorizationForm")
               if kind == "hidden" or (name == "allow" and not args.deny)}
    answer = browser.post(page.url, data=consent, allow_redirects=False, timeout=TIMEOUT)
    if answer.status_code != 302:
        sys.exit(f"flow: the consent form answered {answer.status_code}, not a redirect:\n{answer.text[:2000]}")
    callback = answer.headers["Location"]
    landed = browser.get(callback, timeout=TIMEOUT)
    if landed.status_code != 200 or not arrived:
        sys.exit(f"flow: the redirect URI {callback} was not reached ({landed.status_code})")
    result = {"callback": callback, "arrived": arrived[-1], "state": state, "nonce": nonce,
              "code_verifier": verifier, "client_id": client["client_id"], "user_id": clients["user_id"]}
    callback_server.shutdown()
    if args.deny:
        write(args.out, result)
        return

    parts = urlsplit(callback)
    response = {name: values[0] for name, values in parse_qs(parts.fragment if args.hybrid else parts.query).items()}
    if args.hybrid:
        result["front_id_token"] = response["id_token"]
        if response.get("state") != state:
            sys.exit(f"flow: the authorization response's state is not the one sent: {callback}")
        token = session.fetch_token(metadata["token_endpoint"], code=response["code"], state=state,
                                    code_verifier=verifier, timeout=TIMEOUT)
    else:
        token = session.fetch_token(metadata["token_endpoint"], authorization_response=callback, state=state,
                                    code_verifier=verifier, timeout=TIMEOUT)
    result.update(code=response["code"], id_token=token["id_token"], access_token=token["access_token"])
    write(args.out, result)


def write(path, result):
    with open(path, "w") as file:
        json.dump(result, file, indent=2)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("keygen")
    command.add_argument("file")
    command = commands.add_parser("setup")
    command.add_argument("dir")
    command.add_argument("--redirect-uri", required=True)
    command = commands.add_parser("serve")
    command.add_argument("dir")
    command.add_argument("--port", type=int, required=True)
    command.add_argument("--key", required=True)
    command.add_argument("--inactive-key", action="append", default=[])
    command = commands.add_parser("flow")
    command.add_argument("dir")
    command.add_argument("--issuer", required=True)
    command.add_argument("--hybrid", action="store_true")
    command.add_argument("--deny", action="store_true")
    command.add_argument("--out", required=True)
    args = parser.parse_args()
    {"keygen": keygen, "setup": setup, "serve": serve, "flow": flow}[args.command](args)


if __name__ == "__main__":
    main()
