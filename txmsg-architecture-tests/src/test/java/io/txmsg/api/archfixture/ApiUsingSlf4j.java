package io.txmsg.api.archfixture;

import org.slf4j.Logger;

/** Breaks the dependency-free rule on purpose: an api class that needs a logging library. */
public class ApiUsingSlf4j {
  Logger log;
}
