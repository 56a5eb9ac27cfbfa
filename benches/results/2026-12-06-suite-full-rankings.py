# Rankings per scenario from a bench report.json, changes against hello, browser - minimal µs/req.
import json, sys
r = json.load(open(sys.argv[1]))
rows = [x for x in r['rows']]
failed = [(x['framework'], x['scenario'], x['status']) for x in rows if x['status'].get('state', x['status']) not in ('ok',) and x['status'] != {'ok': None}]
def us(x):
    c = x['summary']['cost']
    return c['server_user_us'] + c['server_system_us'] if c.get('server_user_us') is not None else None
by = {}
for x in rows:
    s = x['summary']
    if s.get('rps_ok') is None: continue
    by.setdefault(x['scenario'], []).append((x['framework'], s['rps_ok']['median'], us(x)))
print('status values:', sorted({json.dumps(x['status'])[:60] for x in rows}))
order = ['hello','param','mw','json-post','error','big-json','stream','routes','routes-miss','hello-browser','mw-browser']
ranks = {}
for sc in order:
    if sc not in by: continue
    lst = sorted(by[sc], key=lambda t: -t[1])
    ranks[sc] = {f:i+1 for i,(f,_,_) in enumerate(lst)}
    print(f"{sc:12} " + "  ".join(f"{i+1}.{f} {rps/1000:.1f}k/{u:.1f}us" for i,(f,rps,u) in enumerate(lst)))
# by server us/req
print()
for sc in order:
    if sc not in by: continue
    lst = sorted(by[sc], key=lambda t: t[2])
    print(f"{sc:12} by µs: " + "  ".join(f"{f} {u:.1f}" for f,_,u in lst))
print()
changes = []
for sc in order:
    if sc in ('hello','hello-browser','mw-browser') or sc not in ranks: continue
    for f, rk in ranks[sc].items():
        if f in ranks['hello']:
            changes.append((abs(rk - ranks['hello'][f]), sc, f, ranks['hello'][f], rk))
changes.sort(reverse=True)
print('largest ranking changes vs hello (rank by req/s):')
for c in changes[:8]: print(f"  {c[2]} on {c[1]}: {c[3]} -> {c[4]}")
print()
get = lambda sc: {f:(rps,u) for f,rps,u in by.get(sc,[])}
for base, br in (('hello','hello-browser'),('mw','mw-browser')):
    a, b = get(base), get(br)
    print(f"{br} - {base} (server µs/req, req/s ratio):")
    for f in b:
        if f in a: print(f"  {f:13} {a[f][1]:6.2f} -> {b[f][1]:6.2f}  +{b[f][1]-a[f][1]:5.2f} µs   req/s {b[f][0]/a[f][0]:.2f}x")
