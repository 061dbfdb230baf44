package io.txmsg.archfixtureb;

import io.txmsg.archfixturea.CycleA;

/** The other half of a deliberate package cycle. */
public class CycleB {
  CycleA other;
}
