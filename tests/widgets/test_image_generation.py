"""Image generation (issue 27), from a stream built to the documented shapes (the openai
package's ResponseImageGenCallPartialImageEvent and ImageGenerationCall): each partial
image is drawn in its live pane as it arrives and saved beside the session, the final
image is drawn in the committed entry and saved too; exec --json never prints the
base64 of a partial image."""

from __future__ import annotations

import base64
import io
import json

import pytest
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.streams import completed, created, ev, message, message_events
from helpers.tui import GatedServer, until
from test_mcp_views import screen_output

from rivulet.app.tui import RivuletApp
from rivulet.core.store.images import file_stem
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.core.turn.bus import ItemProgressed
from rivulet.widgets.entries import AssistantEntry, ViewEntry
from rivulet.widgets.live import LiveImage

IID = "ig_0123abc"


def _png(colour: tuple[int, int, int]) -> str:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


RED, GREEN, BLUE = _png((255, 0, 0)), _png((0, 255, 0)), _png((0, 0, 255))
ITEM = {"id": IID, "type": "image_generation_call", "status": "completed", "result": BLUE, "output_format": "png",
        "revised_prompt": "a blue square"}


def stream() -> list[str]:
    partial = {"type": "response.image_generation_call.partial_image", "item_id": IID, "output_index": 0,
               "output_format": "png", "size": "1024x1024"}
    return [
        created(),
        ev("response.output_item.added", output_index=0,
           item={"id": IID, "type": "image_generation_call", "status": "in_progress", "result": None}),
        ev("response.image_generation_call.in_progress", item_id=IID, output_index=0),
        ev("response.image_generation_call.generating", item_id=IID, output_index=0),
        json.dumps({**partial, "partial_image_index": 0, "partial_image_b64": RED}),
        json.dumps({**partial, "partial_image_index": 1, "partial_image_b64": GREEN}),  # the gate stops here
        ev("response.image_generation_call.completed", item_id=IID, output_index=0),
        ev("response.output_item.done", output_index=0, item=ITEM),
        *message_events("msg_1", "Here it is.", 1),
        completed([ITEM, message("msg_1", "Here it is.")]),
    ]


def with_session(server: GatedServer, tmp_path) -> RivuletApp:
    s = settings(model="gpt-5")
    writer = LazySessionWriter(model=s.model, base_url=s.base_url, directory=tmp_path / "sessions")
    return RivuletApp(s, server.transport(), remember_theme=False, session_writer=writer)


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


async def test_partial_images_are_drawn_live_and_saved_then_the_final_one(tmp_path):
    server = GatedServer(stream(), gate_at={0: 6})
    app = with_session(server, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        app.query_one("Composer").load_text("draw a square")
        await pilot.press("enter")
        await until(pilot, lambda: any("partial image 2" in str(p.query_one(".live-label").render())
                                       for p in app.query(LiveImage)), "the second partial image")
        raw, text = screen_output(app)
        assert "🖼 image generation · partial image 2 · saved" in text
        assert "▀" in text and "0;255;0" in raw  # drawn in half blocks, in its colour (green)
        server.release()
        await until(pilot, lambda: not app.turn_worker.is_running and app.query(ViewEntry)
                    and app.query(AssistantEntry), "the committed entries")
        await pilot.pause()
        raw, text = screen_output(app)
        assert "🖼 image generation" in text and "prompt: a blue square" in text
        assert "0;0;255" in raw  # the final image, blue
        folder = app.session_writer.path.with_name(app.session_writer.path.stem + ".images")
    saved = sorted(p.name for p in folder.iterdir())
    assert saved == [f"{file_stem(IID, n)}.png" for n in ("final", "partial0", "partial1")]
    assert (folder / f"{file_stem(IID, 'final')}.png").read_bytes() == base64.b64decode(BLUE)


def test_exec_json_gives_a_partial_image_as_its_size_not_its_base64():
    event = ItemProgressed(IID, "response.image_generation_call.partial_image", RED, 0).to_json()
    assert RED not in json.dumps(event) and event["image_b64"].endswith(" bytes")
