#!/usr/bin/env python3
"""Aggregates `jfr print --events jdk.ExecutionSample --stack-depth 96 o.jfr` output: the
inclusive share of each category and the top self frames, for the threads whose name matches the
optional regex, e.g.  samples.py samples.txt '"load-or-'  (txmsg OUTBOX over remoting)."""
import re, sys, collections
from jfrtext import execution_samples
path = sys.argv[1]; thread_re = re.compile(sys.argv[2]) if len(sys.argv) > 2 else None
cats = [
  ('sha256 payload hash', r'PayloadHashes|sun\.security\.provider\.(SHA|Digest)'),
  ('envelope/txmsg api', r'io\.txmsg\.api\.'),
  ('mybatis', r'org\.apache\.ibatis\.'),
  ('mybatis-spring/spring tx', r'org\.mybatis\.spring|org\.springframework\.'),
  ('h2 engine', r'org\.h2\.'),
  ('hikari', r'com\.zaxxer\.hikari'),
  ('micrometer', r'io\.micrometer\.'),
  ('slf4j/logging', r'org\.slf4j|ch\.qos\.logback|org\.apache\.logging'),
  ('grpc/netty/rocketmq client', r'io\.grpc\.|io\.netty\.|org\.apache\.rocketmq\.|com\.google\.protobuf'),
  ('txmsg producer', r'io\.txmsg\.producer\.'),
  ('txmsg store', r'io\.txmsg\.store\.'),
  ('txmsg transport', r'io\.txmsg\.(transport|rocketmq)'),
  ('bench harness', r'io\.txmsg\.bench\.'),
]
samples = 0; incl = collections.Counter(); selfc = collections.Counter(); threads = collections.Counter()
for _, thread, frames in execution_samples(path):
  if thread_re and not thread_re.search('"' + thread + '"'):
    continue
  samples += 1; threads[thread] += 1
  joined = '\n'.join(frames)
  for name, pat in cats:
    if re.search(pat, joined): incl[name] += 1
  if frames: selfc[frames[0]] += 1
print(f'samples: {samples}')
for name, _ in cats: print(f'  {name:32s} {incl[name]:6d} {100*incl[name]/max(samples,1):5.1f} %')
print('top self frames:')
for f, n in selfc.most_common(25): print(f'  {n:6d} {100*n/max(samples,1):5.1f} %  {f}')
print('threads:')
for t, n in threads.most_common(12):
  print(f'  {n:6d}  {t}')
