"""The protocol's methods (the SDK's `acp.Agent`): initialize, session/new and
session/load (each session an engine of the one assembly: the settings, profile, `-c`,
sandbox, checkpoints and hooks the chat gets, in the editor's cwd), session/prompt,
session/cancel and session/set_mode (the approval policies as modes).

A request the agent cannot serve is a JSON-RPC error with one line: an unknown session,
a second prompt while one runs, a prompt block that cannot be read, a bad setting."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionConfigOptionSelect,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from rivulet.app.acp.session import AcpSession, Busy, TurnFailed
from rivulet.core.errors import RivuletError

if TYPE_CHECKING:
    from acp.interfaces import Client

    from rivulet.core.config import Settings
    from rivulet.core.store.session import Session

log = logging.getLogger(__name__)
INVALID_PARAMS, INTERNAL = -32602, -32603


class RivuletAgent:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.sessions: dict[str, AcpSession] = {}
        self._client: Client | None = None
        self._frozen = False
        self.files = False  # the client offers fs/read_text_file and fs/write_text_file
        self.terminal_display = False  # the client shows our commands' output in its terminals (terminal_display.py)

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **kwargs: Any) -> InitializeResponse:
        from rivulet.app import VERSION
        from rivulet.app.acp.client_files import offers_files
        from rivulet.app.acp.terminal_display import offers_display

        self.files = offers_files(client_capabilities)  # patches through the editor's buffers
        # (`terminal`, ACP's own terminals, is never used: they run commands out of the sandbox)
        self.terminal_display = offers_display(client_capabilities)

        caps = AgentCapabilities(load_session=True, prompt_capabilities=PromptCapabilities(image=True,
                                 embedded_context=True), mcp_capabilities=McpCapabilities(http=True, sse=False))
        return InitializeResponse(protocol_version=min(protocol_version, PROTOCOL_VERSION), agent_capabilities=caps,
                                  agent_info=Implementation(name="rivulet", title="rivulet", version=VERSION))

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> NewSessionResponse:
        from rivulet.core.assembly import NewSession
        from rivulet.core.store.session import new_session_id

        sid = new_session_id()  # the session file's id (made with its first record): what session/load takes
        session = await self._open(sid, cwd, mcp_servers,
                                   lambda s: NewSession("acp", cwd=str(s.workspace), session_id=sid))
        return NewSessionResponse(session_id=sid, modes=_modes(session.engine.settings),
                                  config_options=[self._model(session)])

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **kwargs: Any) -> LoadSessionResponse:
        from rivulet.app.acp.replay import replay
        from rivulet.core.assembly import ResumeSession
        from rivulet.core.store.session import SessionError, find_session, load_session

        if session_id in self.sessions:
            raise RequestError(INVALID_PARAMS, f"session {session_id} is open already")
        try:
            path = find_session(session_id)
            saved: Session = await asyncio.to_thread(load_session, path)
        except SessionError as exc:
            raise RequestError(INVALID_PARAMS, exc.message) from None
        except OSError as exc:
            raise RequestError(INVALID_PARAMS, f"cannot read session {session_id}: {exc.strerror or exc}") from None
        session = await self._open(session_id, cwd, mcp_servers, lambda s: ResumeSession(path), saved.meta.model)
        for update in replay(saved.history.items, session.workspace, saved.subagent_items):
            await self._send(session_id, update)
        return LoadSessionResponse(modes=_modes(session.engine.settings), config_options=[self._model(session)])

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        from rivulet.app.acp.prompt_blocks import PromptError, to_input

        session = self._session(session_id)
        try:
            text, attachments = to_input(prompt, session.workspace, session.engine.settings.image_max_bytes)
        except PromptError as exc:
            raise RequestError(INVALID_PARAMS, str(exc)) from None
        try:
            return await session.prompt(text, attachments)
        except Busy:
            raise RequestError(-32600, f"a prompt is running in session {session_id}: cancel it first") from None
        except TurnFailed as exc:
            raise RequestError(INTERNAL, str(exc)) from None

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> SetSessionModeResponse:
        from rivulet.app.commands.settings import APPROVALS, set_approval

        session = self._session(session_id)
        if mode_id not in APPROVALS:
            raise RequestError(INVALID_PARAMS, f"no mode {mode_id!r}: one of {', '.join(APPROVALS)}")
        await set_approval(session, mode_id)
        return SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **kwargs: Any) -> SetSessionConfigOptionResponse:
        """The model, from the next request on (as /model switches it)."""
        from rivulet.app.acp.config_options import MODEL

        session = self._session(session_id)
        if config_id != MODEL or not isinstance(value, str) or not value.strip():
            raise RequestError(INVALID_PARAMS, f"no option {config_id!r} = {value!r}: the model is {MODEL!r}")
        if value.strip() != session.engine.settings.model:
            session.engine.set_model(value.strip())
        return SetSessionConfigOptionResponse(config_options=[self._model(session)])

    def _model(self, session: AcpSession) -> SessionConfigOptionSelect:
        from rivulet.app.acp.config_options import model_option

        return model_option(session.engine.settings.model, session.models)

    async def close(self) -> None:
        """Every session's turn stopped, its engine and session file closed (stdin ended)."""
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            try:
                await session.close()
            except Exception:
                log.warning("closing session %s failed", session.id, exc_info=True)

    # ---- the sessions ------------------------------------------------------------------

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(INVALID_PARAMS, f"no session {session_id!r}: session/new or session/load first")
        return session

    async def _send(self, session_id: str, update: Any) -> None:
        if self._client is not None:
            await self._client.session_update(session_id, update)

    async def _open(self, sid: str, cwd: str, servers: list[Any] | None, plan: Any,
                    model: str | None = None) -> AcpSession:
        from rivulet.app.acp.build import build_session

        try:
            session = await build_session(self, sid, cwd, servers or [], plan, model)
        except RivuletError as exc:
            raise RequestError(INVALID_PARAMS if exc.kind == "config_error" else INTERNAL, exc.message) from None
        except OSError as exc:
            raise RequestError(INTERNAL, f"cannot open the session: {exc.strerror or exc}") from None
        from rivulet.app.acp.config_options import model_names

        session.models = await model_names(session.engine.settings)
        self.sessions[sid] = session
        session.start()
        if not self._frozen:  # start-up is over: what it left alive is never walked again (app/gc_pacing.py)
            self._frozen = True
            gc.collect()
            gc.freeze()
        return session

    @property
    def client(self) -> Client | None:
        return self._client


def _modes(settings: Settings) -> SessionModeState:
    from rivulet.app.commands.settings import APPROVALS

    return SessionModeState(current_mode_id=settings.approval,
                            available_modes=[SessionMode(id=k, name=k, description=v) for k, v in APPROVALS.items()])
