"""`/api/v1/protocol`: the protocol's version and hash, `events.json`,
`schema.json` and `tools.json` (spec studio §6)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from bandstand.server.state import ServerState, server_state

router = APIRouter(prefix="/protocol", tags=["protocol"])


@router.get("", summary="The protocol version, the hash of all schemas, and the event types of each stream")
async def protocol(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    return {**state.document("protocol"), "documents": {
        "events": "/api/v1/protocol/events.json", "schema": "/api/v1/protocol/schema.json",
        "tools": "/api/v1/protocol/tools.json"}}


@router.get("/events.json", summary="Every stream kind and its events, with descriptions and fields")
async def events(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    return dict(state.document("events"))


@router.get("/schema.json", summary="One JSON Schema (2020-12) with every event bandstand sends or accepts")
async def schema(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    return dict(state.document("schema"))


@router.get("/tools.json", summary="The tools clients may call, with their parameter schemas")
async def tools(state: ServerState = Depends(server_state)) -> dict[str, Any]:
    return dict(state.document("tools"))
