package io.txmsg.archfixturea;

import io.txmsg.archfixtureb.CycleB;

/** One half of a deliberate package cycle (io.txmsg.archfixturea ↔ io.txmsg.archfixtureb). */
public class CycleA {
  CycleB other;
}
