"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), self-contained: their
scripts and styles come from the installed `fastapi-offline` package (the files FastAPI would
load from a CDN) and are served here, under the same content security policy as the other pages
(server/routes/pages.py). A machine without internet gets its docs; a browser loads nothing
from a third party."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from duel.errors import GameNotFoundError
from server.routes.pages import new_nonce, page_headers

router = APIRouter(include_in_schema=False)

ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
OPENAPI = "/openapi.json"


# The one file a docs page would load from a third party: the logo in ReDoc's footer.
REDOC_LOGO = (b"https://cdn.redoc.ly/redoc/logo-mini.svg", b"/docs/assets/favicon.png")


@cache
def _asset(name: str) -> bytes:
    data = resources.files("fastapi_offline").joinpath("static", name).read_bytes()
    return data.replace(*REDOC_LOGO) if name == "redoc.standalone.js" else data


@router.get("/docs/assets/{name}")
async def asset(name: str) -> Response:
    if name not in ASSETS:
        raise GameNotFoundError(f"no documentation asset {name!r}")
    return Response(_asset(name), media_type=ASSETS[name],
                    headers={"Cache-Control": "public, max-age=86400",
                             "X-Content-Type-Options": "nosniff"})


# ReDoc's bundle inserts one style element as it loads, before it can be given the nonce:
# perfect-scrollbar's CSS (and an empty one). They are allowed by their hashes on /redoc alone
# (tests/server/test_page_policy.py sees a refused style if the bundle's CSS ever changes).
REDOC_STYLES = ("'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",
                "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='")


def _page(title: str, head: str, body: str, styles: tuple[str, ...] = ()) -> HTMLResponse:
    nonce = new_nonce()
    html = (f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>"
            f'<link rel=icon href="/docs/assets/favicon.png">'
            f"{head.replace('NONCE', nonce)}</head><body>{body.replace('NONCE', nonce)}"
            "</body></html>")
    return HTMLResponse(html, headers=page_headers(nonce, styles))


@router.get("/docs")
async def swagger() -> HTMLResponse:
    """Swagger UI on this server's OpenAPI document."""
    # validatorUrl: no badge fetched from swagger.io's online validator.
    options = json.dumps({"url": OPENAPI, "dom_id": "#swagger-ui", "deepLinking": True,
                          "layout": "BaseLayout", "validatorUrl": None})
    return _page(
        "duel API - Swagger UI",
        '<link rel=stylesheet href="/docs/assets/swagger-ui.css" nonce="NONCE">',
        '<div id="swagger-ui"></div>'
        '<script src="/docs/assets/swagger-ui-bundle.js" nonce="NONCE"></script>'
        f'<script nonce="NONCE">window.ui = SwaggerUIBundle({options});</script>')


@router.get("/redoc")
async def redoc() -> HTMLResponse:
    """ReDoc on this server's OpenAPI document."""
    return _page(
        "duel API - ReDoc", "",
        f'<div id="redoc"></div>'
        '<script src="/docs/assets/redoc.standalone.js" nonce="NONCE"></script>'
        # ReDoc's styles are inserted at run time (styled-components): they carry the page's
        # nonce when ReDoc is given it. Its search runs in a worker made from a blob, which
        # the policy refuses: searching is off (the browser's own find works on the page).
        f'<script nonce="NONCE">Redoc.init({json.dumps(OPENAPI)}, '
        '{"nonce": "NONCE", "disableSearch": true}, document.getElementById("redoc"));'
        '</script>', REDOC_STYLES)
