"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), self-contained: their
scripts and styles come from the installed `fastapi-offline` package (the files FastAPI would
load from a CDN) and are served here, under the same content security policy as the other pages
(server/routes/pages.py). A machine without internet gets its docs; a browser loads nothing
from a third party."""

from __future__ import annotations

import json
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


def _asset(name: str) -> bytes:
    return resources.files("fastapi_offline").joinpath("static", name).read_bytes()


@router.get("/docs/assets/{name}")
async def asset(name: str) -> Response:
    if name not in ASSETS:
        raise GameNotFoundError(f"no documentation asset {name!r}")
    return Response(_asset(name), media_type=ASSETS[name],
                    headers={"Cache-Control": "public, max-age=86400",
                             "X-Content-Type-Options": "nosniff"})


def _page(title: str, head: str, body: str) -> HTMLResponse:
    nonce = new_nonce()
    html = (f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>"
            f'<link rel=icon href="/docs/assets/favicon.png">'
            f"{head.replace('NONCE', nonce)}</head><body>{body.replace('NONCE', nonce)}"
            "</body></html>")
    return HTMLResponse(html, headers=page_headers(nonce))


@router.get("/docs")
async def swagger() -> HTMLResponse:
    """Swagger UI on this server's OpenAPI document."""
    options = json.dumps({"url": OPENAPI, "dom_id": "#swagger-ui", "deepLinking": True,
                          "layout": "BaseLayout"})
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
        f'<script nonce="NONCE">Redoc.init({json.dumps(OPENAPI)}, '
        '{"hideDownloadButton": false}, document.getElementById("redoc"));</script>')
