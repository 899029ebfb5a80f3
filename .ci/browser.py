"""The playground's browser test (.ci/browser starts the server and chromedriver).

Drives headless Chromium with the W3C WebDriver protocol over HTTP (urllib and json only):
python3 .ci/browser.py PAGE_URL DRIVER_URL SCREENSHOT_DIR SHADER.vso [README_SHOT.png]
With README_SHOT, the last step's screenshot (the terrain example open) is also written there.
"""

import base64
import json
import os
import sys
import time
import urllib.error
import urllib.request

PAGE, DRIVER, SHOTS, VSO = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4]
README_SHOT = sys.argv[5] if len(sys.argv) > 5 else None
HEIGHT_PNG = os.path.abspath("examples/heightmap/height.png")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

BROKEN = """vs_3_0
dcl_position v0
dcl_position o0
mov o0, r1
"""

FIXED = """vs_3_0
dcl_position v0
dcl_color v1
dcl_position o0
dcl_color o1
mul o0, v0, c0
mov o1, v1
"""

PIXEL_SHADER = """ps_2_0
def c0, 1, 0.5, 0, 1
mov oC0, c0
"""

# A 32x16 frame cleared to black, a 16x16 quad at its left drawn by the editor's pixel shader.
DRAW_SCENE = {
    "width": 32, "height": 16, "clear": {"color": "0xff000000"},
    "pixel_shader_asm": "ps_2_0\nmov oC0, c0\n",
    "primitive": "TRIANGLESTRIP", "vertex_count": 4,
    "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0}],
    "streams": [{"stride": 16, "f32": [0, 0, 0.5, 1, 16, 0, 0.5, 1, 0, 16, 0.5, 1, 16, 16, 0.5, 1]}],
    "states": {"CULLMODE": "NONE"},
}

READ_PIXEL = """
const img = document.getElementById('picture');
const c = document.createElement('canvas');
c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d');
g.drawImage(img, 0, 0);
return [...g.getImageData(arguments[0], arguments[1], 1, 1).data];
"""

SCENE = {
    "vertex_count": 3,
    "declaration": [
        {"stream": 0, "offset": 0, "type": "FLOAT3", "usage": "POSITION", "usage_index": 0},
        {"stream": 0, "offset": 12, "type": "FLOAT4", "usage": "COLOR", "usage_index": 0},
    ],
    "streams": [{"stride": 28, "f32": [1, 2, 3, 1, 0, 0, 1, -1, 0, 0, 0, 1, 0, 1, 0, 0, 4, 0, 0, 1, 1]}],
    "constants": {"c0": [2, 0.5, -1, 1]},
}


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(DRIVER + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read() or b"{}").get("value")
    except urllib.error.HTTPError as e:
        raise SystemExit(f"webdriver {method} {path}: {e.code} {e.read().decode()[:500]}")


def server_answers():
    """Whether the server answers a request of this script's own (for a failure's report)."""
    req = urllib.request.Request(PAGE + "api/check", data=b'{"source": "vs_2_0"}', method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return f"answers ({r.status})"
    except Exception as e:  # noqa: BLE001 - any failure is what the report is for
        return f"does not answer ({e})"


def wait_driver():
    for _ in range(100):
        try:
            with urllib.request.urlopen(DRIVER + "/status", timeout=2) as r:
                if json.loads(r.read())["value"].get("ready"):
                    return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    raise SystemExit("chromedriver did not start")


class Browser:
    def __init__(self):
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1400,1500"],
            },
        }}}
        self.sid = call("POST", "/session", caps)["sessionId"]
        self.step = 0

    def s(self, path):
        return f"/session/{self.sid}{path}"

    def go(self, url):
        call("POST", self.s("/url"), {"url": url})

    def js(self, script, *args):
        return call("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def find(self, css):
        found = call("POST", self.s("/element"), {"using": "css selector", "value": css})
        if ELEMENT not in found:
            raise SystemExit(f"webdriver: no element {css}: {found}")
        return found[ELEMENT]

    def clear(self, css):
        call("POST", self.s(f"/element/{self.find(css)}/clear"), {})

    def type(self, css, text):
        call("POST", self.s(f"/element/{self.find(css)}/value"), {"text": text})

    def click(self, css):
        call("POST", self.s(f"/element/{self.find(css)}/click"), {})

    def move_to(self, css, dx, dy):
        """Move the mouse to (dx, dy) from the element's centre (W3C actions)."""
        origin = {ELEMENT: self.find(css)}
        call("POST", self.s("/actions"), {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": origin, "x": dx, "y": dy}],
        }]})

    def click_at(self, css, dx, dy):
        """A real mouse click at (dx, dy) from the element's centre (W3C actions)."""
        origin = {ELEMENT: self.find(css)}
        call("POST", self.s("/actions"), {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": origin, "x": dx, "y": dy},
                        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}],
        }]})
        call("DELETE", self.s("/actions"))

    def until(self, what, script, *args, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            value = self.js(script, *args)
            if value:
                return value
            time.sleep(0.1)
        self.shot("failed")
        status = self.js("return document.getElementById('status').textContent")
        raise SystemExit(f"FAIL: {what} (waited {timeout} s; the page's status: {status!r}; "
                         f"the server: {server_answers()})")

    def shot(self, name):
        self.step += 1
        png = base64.b64decode(call("GET", self.s("/screenshot")))
        path = os.path.join(SHOTS, f"{self.step:02d}-{name}.png")
        with open(path, "wb") as f:
            f.write(png)
        print(f"  screenshot {path}")

    def small_shot(self, path, scale):
        """The viewport at `scale` (Chromium's Page.captureScreenshot through chromedriver's
        CDP door): the README's picture, smaller than a screenshot at full size."""
        w, h = self.js("return [window.innerWidth, window.innerHeight]")
        shot = call("POST", self.s("/goog/cdp/execute"), {"cmd": "Page.captureScreenshot", "params": {
            "format": "png", "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": scale}}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print(f"  screenshot {path} (at {scale})")

    def quit(self):
        call("DELETE", self.s(""))


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def main():
    wait_driver()
    b = Browser()
    try:
        run(b)
    finally:
        b.quit()
    print("browser test passed")


def run(b):
    b.go(PAGE)
    b.until("the page loads and assembles its example",
            "return document.querySelectorAll('#tokens .tok').length > 0")
    b.shot("loaded")

    # The example's constants by name: the form shows the scene's Tint; setting it there
    # changes the scene, and Run uses it.
    tint = b.js("return document.querySelector('.ctab-value[data-name=\"Tint\"]').value")
    check(tint == "1, 1, 1, 1", f"the form shows the scene's Tint ({tint!r})")
    b.clear(".ctab-value[data-name='Tint']")
    b.type(".ctab-value[data-name='Tint']", "0.5, 1, 1, 1\ue007")
    constants = b.js("return JSON.parse(document.getElementById('scene').value).constants")
    check(constants.get("Tint") == [0.5, 1, 1, 1], f"the scene's Tint is set ({constants})")
    b.click("#run")
    rows = b.until("the example's output table",
                   "const r = [...document.querySelectorAll('#outputs tbody tr')]"
                   ".map(tr => [...tr.children].map(td => td.textContent));"
                   "return r.length && r;")
    check(rows[0][2] == "0.5, 0, 0, 1", f"vertex 0's colour is tinted ({rows[0][2]})")
    b.shot("constants")

    # A shader with an error on line 4: the diagnostic is listed and underlined there.
    b.clear("#source")
    b.type("#source", BROKEN)
    d = b.until("a diagnostic for the broken shader",
                "const li = document.querySelector('#diagnostics li.error[data-line]');"
                "return li && {line: li.dataset.line, rule: li.dataset.rule || null, text: li.textContent};")
    check(d["line"] == "4", f"the diagnostic is at line 4 ({d['text']})")
    check(d["rule"] is not None, f"the diagnostic names its rule ({d['rule']})")
    under = b.js("return [...document.querySelectorAll('#highlight .line[data-line=\"4\"] .diag')]"
                 ".map(u => u.textContent).join('');")
    check(under == "mov o0, r1", f"line 4's instruction is underlined ({under!r})")
    # Hovering the underline shows the rule and the message.
    box = b.js("const s = document.getElementById('source'); const r = s.getBoundingClientRect();"
               "const cs = getComputedStyle(s); const p = document.createElement('span');"
               "p.textContent = '0'.repeat(100); p.style.font = cs.font; document.body.appendChild(p);"
               "const w = p.getBoundingClientRect().width / 100; p.remove();"
               "return [r.width, r.height, parseFloat(cs.paddingLeft), parseFloat(cs.paddingTop),"
               " w, parseFloat(cs.lineHeight)];")
    width, height, pad_left, pad_top, char_w, line_h = box
    b.move_to("#source", round(pad_left + 2.5 * char_w - width / 2),
              round(pad_top + 3.5 * line_h - height / 2))
    tip = b.until("the diagnostic's tooltip on hover",
                  "const t = document.getElementById('tooltip'); return !t.hidden && t.textContent;")
    check("V040" in tip and "r1 is read before it is written" in tip, f"the tooltip ({tip!r})")
    b.shot("error")

    # Fixed: no diagnostics, the tokens and the WGSL.
    b.clear("#source")
    b.type("#source", FIXED)
    b.until("the fixed shader is valid",
            "return document.querySelector('#diagnostics li.ok') !== null"
            " && document.querySelector('#diagnostics li.error') === null")
    tokens = b.until("the tokens of the fixed shader",
                     "const t = [...document.querySelectorAll('#tokens .tok')].map(s => s.textContent);"
                     "return t.length && t[t.length - 1] === '0000ffff' && t;")
    check(tokens[0] == "fffe0300", f"the first token is vs_3_0's version token ({tokens[0]})")
    wgsl = b.until("the WGSL translation",
                   "const t = document.getElementById('translation').textContent;"
                   "return t.includes('@vertex') && t;")
    check("fn " in wgsl, "the WGSL has its entry point")
    dis = b.js("return document.getElementById('disassembly').textContent")
    check("mul o0, v0, c0" in dis, "the disassembly lists the shader")
    b.shot("fixed")

    # Hovering a token shows its meaning (dxso::binary::describe, from /api/assemble): word 14
    # is mul's destination token.
    b.move_to("#tokens .tok[data-word='14']", 0, 0)
    meaning = b.until("the hovered token's meaning",
                      "const t = document.getElementById('token-meaning').textContent;"
                      "return t.startsWith('word 14') && t;")
    check("destination: o0 (OUTPUT 0), write mask xyzw" in meaning and "in: mul o0, v0, c0" in meaning,
          f"word 14's meaning ({meaning!r})")
    version = b.js("return document.querySelector(\"#tokens .tok[data-word='0']\").title")
    check(version == "word 0: version token: vs_3_0 (a vertex shader, model 3.0)", f"the version token's title ({version!r})")
    b.shot("token-meaning")

    # A scene: Run, then the output table.
    b.js("document.getElementById('scene').value = arguments[0]", json.dumps(SCENE, indent=2))
    b.click("#run")
    rows = b.until("the output table",
                   "const r = [...document.querySelectorAll('#outputs tbody tr')]"
                   ".map(tr => [...tr.children].map(td => td.textContent));"
                   "return r.length && r;")
    check(len(rows) == 3, f"three output vertices ({len(rows)})")
    check(rows[0][1] == "2, 1, -3, 1", f"vertex 0's o0 is (2, 1, -3, 1) ({rows[0][1]})")
    check(rows[1][1] == "-2, 0, 0, 1", f"vertex 1's o0 is (-2, 0, 0, 1) ({rows[1][1]})")
    check(rows[2][2] == "0, 0, 1, 1", f"vertex 2's o1 is (0, 0, 1, 1) ({rows[2][2]})")
    b.shot("run")

    # Clicking a row traces that vertex.
    b.click("#outputs tbody tr[data-vertex='1']")
    trace = b.until("the trace of vertex 1",
                    "const t = document.getElementById('trace').textContent;"
                    "return t.startsWith('vertex 1:') && t;")
    check("mul o0, v0, c0" in trace and "o0 = (-2, 0, 0, 1)" in trace,
          "the trace shows each instruction and what it wrote")
    b.shot("trace")

    # The permalink holds the shader and the scene.
    link = b.js("return location.href")
    check("#" in link, "the address carries a permalink")
    b.go("about:blank")
    b.go(link)
    b.until("the permalink's shader in the editor",
            "return document.getElementById('source').value === arguments[0]", FIXED)
    scene = b.js("return JSON.parse(document.getElementById('scene').value)")
    check(scene == SCENE, "the permalink's scene")
    b.until("the permalink's shader assembles",
            "return document.querySelectorAll('#tokens .tok').length > 0")
    b.shot("permalink")

    # A bytecode file opened (as a drop does): disassembled into the editor.
    call("POST", b.s(f"/element/{b.find('#file')}/value"), {"text": VSO})
    b.until("the opened .vso's disassembly in the editor",
            "return document.getElementById('source').value.includes('dp4 o0.x, c0, v0')")
    b.until("the opened shader assembles",
            "return document.querySelector('#diagnostics li.ok') !== null")
    b.shot("opened-vso")

    # A draw scene with the editor's pixel shader: the picture, its pixels at known places,
    # and a click on a pixel shows the pixel debugger's trace.
    b.clear("#source")
    b.type("#source", PIXEL_SHADER)
    b.until("the pixel shader is valid", "return document.querySelector('#diagnostics li.ok') !== null")
    b.js("document.getElementById('scene').value = arguments[0]", json.dumps(DRAW_SCENE, indent=2))
    b.click("#run")
    size = b.until("the picture", "const i = document.getElementById('picture');"
                   "return !document.getElementById('picture-box').hidden && i.complete"
                   " && i.naturalWidth > 0 && [i.naturalWidth, i.naturalHeight];")
    check(size == [32, 16], f"the picture is the 32x16 frame ({size})")
    inside = b.js(READ_PIXEL, 5, 5)
    check(inside == [255, 128, 0, 255], f"pixel (5, 5) is the shader's colour ({inside})")
    outside = b.js(READ_PIXEL, 24, 5)
    check(outside == [0, 0, 0, 255], f"pixel (24, 5) is the clear colour ({outside})")
    b.shot("draw")
    w, h = b.js("const r = document.getElementById('picture').getBoundingClientRect(); return [r.width, r.height]")
    scale = w / 32
    b.click_at("#picture", round((5.5 * scale) - w / 2), round((5.5 * scale) - h / 2))
    trace = b.until("the pixel debugger's trace",
                    "const t = document.getElementById('trace').textContent;"
                    "return t.includes('pixel (5, 5):') && t;")
    check("mov oC0, c0" in trace and "written" in trace,
          "the trace shows the pixel shader's run and the output merger")
    b.shot("pixel-trace")

    # The draw's vertex stage: its output vertices (the quad passes through), a row's trace.
    rows = b.until("the draw's output table",
                   "const r = [...document.querySelectorAll('#outputs tbody tr')]"
                   ".map(tr => [...tr.children].map(td => td.textContent));"
                   "return r.length && r;")
    check(len(rows) == 4 and rows[1][1] == "16, 0, 0.5, 1", f"the draw's vertex 1 ({rows[1] if len(rows) > 1 else rows})")
    b.click("#outputs tbody tr[data-vertex='1']")
    trace = b.until("the trace of the draw's vertex 1",
                    "const t = document.getElementById('trace').textContent;"
                    "return t.startsWith('vertex 1:') && t;")
    check("(16, 0, 0.5, 1)" in trace, "the draw's vertex trace shows its output")
    b.shot("draw-vertices")

    # The mesh picker: the textured example's quad (x and y from 7.5 to 119.5) replaces the
    # scene's, so pixel (24, 12), black before, is drawn.
    check(b.js(READ_PIXEL, 24, 12) == [0, 0, 0, 255], "pixel (24, 12) is the clear colour first")
    b.until("the examples are listed", "return document.querySelector(\"#mesh option[value='textured']\") !== null")
    b.click("#mesh option[value='textured']")
    b.until("the mesh in the scene",
            "const s = JSON.parse(document.getElementById('scene').value);"
            "return s.streams && s.streams[0].stride === 24;")
    b.click("#run")
    b.until("the picture with the mesh",
            "const i = document.getElementById('picture');"
            "return !document.getElementById('picture-box').hidden && i.complete && i.naturalWidth === 32"
            " && document.querySelectorAll('#outputs tbody tr').length === 4"
            " && document.querySelector('#outputs tbody tr td:nth-child(2)').textContent.startsWith('7.5');")
    pixel = b.js(READ_PIXEL, 24, 12)
    check(pixel == [255, 128, 0, 255], f"pixel (24, 12) is drawn with the example's mesh ({pixel})")
    b.shot("mesh")

    # A PNG from a file becomes the scene's inline texture (the library's PNG reader).
    call("POST", b.s(f"/element/{b.find('#texture-file')}/value"), {"text": HEIGHT_PNG})
    tex = b.until("the texture in the scene",
                  "const s = JSON.parse(document.getElementById('scene').value);"
                  "return s.pixel_textures && s.pixel_textures.s0;")
    check(tex["format"] == "A8B8G8R8" and tex["width"] == 4 and tex["levels"][0][4:8] == [17, 17, 17, 255],
          f"height.png is pixel_textures.s0 ({tex['format']} {tex['width']}x{tex['height']})")
    b.shot("texture")

    # The example picker: the terrain example's scene, its pixel shader in the editor, drawn.
    b.click("#example option[value='terrain']")
    b.until("the terrain's pixel shader in the editor",
            "return document.getElementById('source').value.includes('ps_')"
            " && JSON.parse(document.getElementById('scene').value).vertex_count === 3174;")
    b.until("the terrain's shader is valid", "return document.querySelector('#diagnostics li.ok') !== null")
    b.click("#run")
    size = b.until("the terrain's picture", "const i = document.getElementById('picture');"
                   "return !document.getElementById('picture-box').hidden && i.complete"
                   " && i.naturalWidth === 256 && [i.naturalWidth, i.naturalHeight];")
    check(size == [256, 128], f"the terrain is 256x128 ({size})")
    centre = b.js(READ_PIXEL, 128, 64)
    check(centre != [0x18, 0x1a, 0x22, 255], f"the terrain covers the centre ({centre})")
    b.until("the terrain's vertex table", "return document.querySelectorAll('#outputs tbody tr').length === 3174")
    b.js("window.scrollTo(0, 0)")
    b.move_to("#tokens .tok[data-word='3']", 0, 0)
    meaning = b.until("a def literal's meaning",
                      "const t = document.getElementById('token-meaning').textContent;"
                      "return t.startsWith('word 3') && t;")
    check(meaning.startswith("word 3: literal: c0.x = 0.349999994 (float)"), f"word 3's meaning ({meaning!r})")
    b.shot("example")
    if README_SHOT:
        b.small_shot(README_SHOT, 0.7)


if __name__ == "__main__":
    main()
