#!/usr/bin/env python3
"""Cuts a JFR recording of a producer-section run into its measured points (concurrency 8, rounds
>= R) and prints, per variant: the benchmark JVM's and the machine's CPU per operation (from
jdk.CPULoad), and execution samples per 1,000 operations on the variant's load threads
("load-<variant>-N") by category, and on the other threads (reconcilers, SENT recorder, clients).
A point's measured window is the 3 s before its progress line (the default --measure-ms).

  jfr print --events jdk.ExecutionSample --stack-depth 96 o.jfr > samples.txt
  jfr print --events jdk.CPULoad o.jfr > cpu.txt
  per-point.py bench-output.log samples.txt cpu.txt 4

Categories overlap (a sample inside the journal insert is also inside the detector's proxy).
The categories "send" and "SENT update" match txmsg's and the clients' frames only: the
hand-written outbox's own frames (HandWrittenOutbox) are not split."""
import re, sys, collections
from jfrtext import execution_samples, seconds as secs
log, samples_txt, cpu_txt, rmin = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
points = []
for line in open(log):
  m = re.search(r'\[bench (\S+)\] round (\d+) c=8\s+\((\w+)\).*?(\d+)/s', line)
  if m and int(m.group(2)) >= rmin:
    end = secs(m.group(1)); points.append((m.group(3), end - 3.0, end, int(m.group(4)) * 3))
cpu = []
cur = {}
for line in open(cpu_txt):
  s = line.strip()
  if s.startswith('startTime'): cur = {'t': secs(s.split('= ')[1])}
  elif s.startswith('jvmUser'): cur['u'] = float(s.split('= ')[1].rstrip('%'))
  elif s.startswith('jvmSystem'): cur['s'] = float(s.split('= ')[1].rstrip('%'))
  elif s.startswith('machineTotal'): cur['m'] = float(s.split('= ')[1].rstrip('%')); cpu.append(cur)
samples = [(t, thread, '\n'.join(frames)) for t, thread, frames in execution_samples(samples_txt)]
cats = [('journal insert (mybatis+h2)', r'JournalMapper|DefaultSqlSession\.insert'),
        ('mybatis parameter binding', r'DefaultParameterHandler\.setParameters'),
        ('business insert', r'insertPayment|HandWrittenOutbox.*insert'),
        ('commit', r'\.commit\(\)'),
        ('send', r'ImmediatePublisher\.publish|ProducerImpl\.send|DefaultMQProducer\.send'),
        ('SENT update (txmsg)', r'markSent'),
        ('envelope+hash', r'EnvelopeCodec|PayloadHashes'),
        ('observation/metrics', r'ProducerObservations|micrometer'),
        ('detector', r'StatementFailures')]
agg = collections.defaultdict(lambda: collections.Counter())
for v, a, b, ops in points:
  c = [x for x in cpu if a <= x['t'] <= b]
  jvm = sum(x['u'] + x['s'] for x in c) / max(len(c), 1); mach = sum(x['m'] for x in c) / max(len(c), 1)
  ss = [x for x in samples if x[0] is not None and a <= x[0] <= b]
  load = [x for x in ss if x[1].startswith('load-' + v + '-')]
  other = [x for x in ss if not x[1].startswith('load-')]
  A = agg[v]; A['ops'] += ops; A['jvm'] += jvm * 3 * 2 / 100  # core-seconds (2 cores)
  A['mach'] += mach * 3 * 2 / 100; A['load'] += len(load); A['other'] += len(other)
  for name, pat in cats:
    A[name] += sum(1 for x in load if re.search(pat, x[2]))
  othr = collections.Counter(x[1].split('-')[0] if not x[1].startswith('NettyClientWorker') else 'netty' for x in other)
  for k, n in othr.items(): A['o:' + re.sub(r'\d+', '#', k)] += n
for v, A in agg.items():
  k = A['ops'] / 1000
  print(f"({v}) ops {A['ops']}: bench JVM {1000*A['jvm']/A['ops']:.3f} core-ms/op, machine {1000*A['mach']/A['ops']:.3f} core-ms/op; samples/1000 ops: load threads {A['load']/k:.1f}, other bench threads {A['other']/k:.1f}")
  for name, _ in cats: print(f"     {name:32s} {A[name]/k:6.1f}")
  for key in sorted(x for x in A if x.startswith('o:')):
    if A[key]/k >= 0.5: print(f"     other {key[2:]:26s} {A[key]/k:6.1f}")
