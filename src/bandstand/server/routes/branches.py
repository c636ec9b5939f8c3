"""Branches of a project's history: `GET …/branches` (the branches and the history
graph), `POST …/branches` (a branch at HEAD, switched to), `POST …/checkout` (a branch
or a revision) and `POST …/merge` (another branch's changes as one revision). The routes
translate; the use cases are `App`'s (`branch`, `checkout`, `merge`, `branches`). Mistakes are one line: 422
naming the field (a name with '/' or '..', a branch merged into itself), 404 (an unknown
branch or revision), 409 (a name taken, changes that clash, nothing to merge).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from pydantic import Field

from bandstand.producer import App
from bandstand.producer.app import BranchRequest, CheckoutRequest, MergeRequest
from bandstand.protocol import WireModel
from bandstand.server.errors import ERROR_RESPONSES, STRICT
from bandstand.server.routes.projects import ProjectId
from bandstand.server.state import studio_service

if TYPE_CHECKING:
    from bandstand.producer.app import Studio

router = APIRouter(prefix="/projects", tags=["projects"], responses=ERROR_RESPONSES)


class NewBranch(WireModel):
    """A branch to make at HEAD (and switch to)."""

    model_config = STRICT

    name: str = Field(max_length=200, description="letters, digits, '-', '_' or '.' (no '/' or '..')")


class Checkout(WireModel):
    model_config = STRICT

    target: str = Field(max_length=200, description="a branch name, or a revision number (3 or r3)")


class Merge(WireModel):
    model_config = STRICT

    branch: str = Field(max_length=200, description="the branch whose changes to merge into the current one")


@router.get("/{project_id}/branches", summary="The branches (the current one marked) and the history as a graph")
def list_branches(project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    return dict(App.of(studio).branches(project_id, graph=True, read_only=True))  # the schema stays a plain object


@router.post("/{project_id}/branches", status_code=201, summary="Make a branch at HEAD and switch to it")
def create_branch(body: NewBranch, project_id: str = ProjectId,
                  studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    app = App.of(studio)
    app.branch(BranchRequest(project_id, body.name))
    return dict(app.branches(project_id))


@router.post("/{project_id}/checkout", summary="Switch to a branch (its head becomes HEAD), or go to a revision")
def checkout(body: Checkout, project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    moved = App.of(studio).checkout(CheckoutRequest(project_id, body.target))
    return {"projectId": project_id, "branch": moved.branch, "revision": moved.revision}


@router.post("/{project_id}/merge", summary="Merge another branch's changes into the current branch as one revision")
def merge(body: Merge, project_id: str = ProjectId, studio: Studio = Depends(studio_service)) -> dict[str, Any]:
    entry = App.of(studio).merge(MergeRequest(project_id, body.branch, author="api"))
    return {"projectId": project_id, "revision": entry.revision, "branch": entry.branch, "merged": entry.merged,
            "summary": entry.summary, "changes": [c.model_dump(mode="json") for c in entry.changes]}
