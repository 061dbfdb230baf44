"""Reads the text of `jfr print --events jdk.ExecutionSample --stack-depth 96 x.jfr`: one
(start time in seconds of the day, thread name, frames top first without line numbers) per
sample. Shared by samples.py and per-point.py."""
import re


def seconds(hms):
  """'06:54:18.123' -> seconds of the day."""
  h, m, s = hms.split(':')
  return int(h) * 3600 + int(m) * 60 + float(s)


def execution_samples(path):
  t = None; thread = None; frames = []; in_frames = False
  for line in open(path, errors='replace'):
    s = line.strip()
    if s.startswith('jdk.ExecutionSample'):
      t = None; thread = None; frames = []; in_frames = False
    elif s.startswith('startTime') and not in_frames:
      t = seconds(s.split('= ')[1])
    elif s.startswith('sampledThread'):
      thread = s.split('"')[1] if '"' in s else s
    elif s.startswith('stackTrace = ['):
      in_frames = True
    elif in_frames and s == ']':
      in_frames = False
      if thread is not None:
        yield t, thread, frames
    elif in_frames and s and s != '...':
      frames.append(re.sub(r'\s+line:.*$', '', s))
