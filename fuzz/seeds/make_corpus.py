# Fills fuzz/corpus/<target>/ (not committed) with seeds from ../shared and the repository's
# examples. The dxso binary assembles the listings: DXSO=path/to/dxso (default: the
# workspace's target/debug/dxso, or $CARGO_TARGET_DIR's).
import json, os, random, subprocess, glob, struct, hashlib
root = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
target_dir = os.environ.get('CARGO_TARGET_DIR', os.path.join(root, 'target'))
dxso = os.environ.get('DXSO', os.path.join(target_dir, 'debug', 'dxso'))
out = os.path.join(root, 'fuzz', 'corpus')
shared = os.path.join(root, '..', 'shared')
random.seed(17)
def put(target, data):
    d = os.path.join(out, target); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, hashlib.sha1(data).hexdigest()), 'wb').write(data)
asm = sorted(glob.glob(shared + '/corpus/dx9-asm/*/*.asm'))
cases = json.load(open(shared + '/conformance/wine-asm-cases.json'))
fails = json.load(open(shared + '/conformance/wine-asm-failures.json'))
sources = [open(f, 'rb').read() for f in asm] + [c['source'].encode() for c in cases] + [c['source'].encode() for c in fails]
tokens = {}
for f in asm:
    r = subprocess.run([dxso, 'asm', f, '--hex'], capture_output=True)
    if r.returncode == 0:
        words = [int(w, 16) for w in r.stdout.split()]
        tokens[f] = struct.pack('<%dI' % len(words), *words)
for c in cases:
    words = [int(w, 16) for w in c['tokens']]
    tokens['case%d' % len(tokens)] = struct.pack('<%dI' % len(words), *words)
for s in sources:
    put('assembler', s)
for t in tokens.values():
    put('reader', t)
for s in sources[::2]:
    put('validator', s)
for t in list(tokens.values())[::2]:
    put('validator', t)
vs = [open(f, 'rb').read() for f in asm if '/vs_' in f]
ps = [open(f, 'rb').read() for f in asm if '/ps_' in f]
for _ in range(600):
    put('linker', random.choice(vs).rstrip(b'\0') + b'\n%%\n' + random.choice(ps))
vtok = [t for k, t in tokens.items() if t[2:4] == b'\xfe\xff']
for t in vtok:
    if len(t) < 65536:
        put('differential', struct.pack('<H', len(t)) + t + os.urandom(random.choice([0, 16, 64, 512])))
for f in glob.glob(root + '/examples/**/*.json', recursive=True) + glob.glob(root + '/crates/dxso-cli/tests/data/*.json'):
    put('scene', open(f, 'rb').read())
for f in glob.glob(root + '/../shared/draw-examples/*.scene.json'):
    put('draw_scene', open(f, 'rb').read())
for f in glob.glob(root + '/examples/**/*.png', recursive=True) + glob.glob(root + '/docs/*.png'):
    if os.path.getsize(f) < 200000: put('png', open(f, 'rb').read())
for f in glob.glob(root + '/crates/dxso-cli/tests/data/*.obj'):
    put('obj', open(f, 'rb').read())
for f in glob.glob(root + '/crates/dxso-cli/tests/data/*.gl*'):
    put('gltf', open(f, 'rb').read())
print({t: len(os.listdir(os.path.join(out, t))) for t in os.listdir(out)})
# CTAB data: the words after the FourCC of each CTAB comment block in the Wine vectors.
for c in json.load(open(shared + '/conformance/wine-ctab-cases.json')):
    words = [int(w, 16) for w in c['tokens']]
    i = 1
    while i < len(words) and words[i] != 0xFFFF:
        if words[i] & 0xFFFF == 0xFFFE:
            n = (words[i] >> 16) & 0x7FFF
            block = words[i + 1:i + 1 + n]
            if block and block[0] == 0x42415443:
                put('ctab', struct.pack('<%dI' % (len(block) - 1), *block[1:]))
            i += 1 + n
        else:
            break
print('ctab', len(os.listdir(os.path.join(out, 'ctab'))))
