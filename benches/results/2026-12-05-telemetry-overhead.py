# Run from the repository root: FWBENCH=path/to/fwbench python3 THIS PAIRS DURATION (e.g. 6 4s).
# Paired A/B: request timing + heap stats on (FWBENCH_HEAP_STATS unset) vs off,
# bare app served with --telemetry-fd 3 (as bench does), server on CPU 0, load on CPU 1.
import socket, subprocess, os, json, sys, time
BIN=os.environ.get('FWBENCH', 'target/release/fwbench')
APP='benches/runtimes/apps/bare/app.js'
HOLD=[open('/dev/null') for _ in range(3)]
def one(on, port):
    a,b=socket.socketpair()
    env=dict(os.environ)
    if not on: env['FWBENCH_HEAP_STATS']='off'
    assert a.fileno()!=3 and b.fileno()!=3
    os.dup2(b.fileno(),3)
    srv=subprocess.Popen(['taskset','-c','0',BIN,'serve',APP,'--port',str(port),'--telemetry-fd','3'],env=env,stdout=subprocess.PIPE,stderr=open('/tmp/ovh/err','w'),pass_fds=(3,))
    os.dup2(HOLD[0].fileno(),3); b.close()
    srv.stdout.readline()
    out=subprocess.run(['taskset','-c','1',BIN,'load',f'http://127.0.0.1:{port}/','-c','50','-t','1','-d',sys.argv[2],'--warmup','1s','--json'],capture_output=True,text=True)
    st=open(f'/proc/{srv.pid}/stat').read().rsplit(')',1)[1].split()
    cpu=(int(st[11])+int(st[12]))/os.sysconf('SC_CLK_TCK')
    a.sendall(b'snapshot\n'); snap=a.makefile().readline()
    srv.terminate(); srv.wait(10); a.close()
    r=json.loads(out.stdout)
    rps=r['requests_per_sec']
    return rps, ('latency' in snap), cpu*1e6/(rps*(float(sys.argv[2][:-1])+1))
pairs=int(sys.argv[1]); port=19100  # first port; each server takes the next
for i in range(pairs):
    order=[True,False] if i%2==0 else [False,True]
    res={}
    for on in order:
        port+=1; res[on]=one(on,port)
    print(f"pair {i+1}: on {res[True][0]} (timed={res[True][1]}) off {res[False][0]} (timed={res[False][1]}) on/off {res[True][0]/res[False][0]:.3f}  server us/req on {res[True][2]:.2f} off {res[False][2]:.2f} ratio {res[True][2]/res[False][2]:.3f}", flush=True)
