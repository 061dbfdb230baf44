package io.txmsg.consumer.archfixture;

import org.apache.ibatis.session.SqlSession;

/** Breaks the store rule on purpose: a consumer class that opens its own MyBatis session. */
public class ConsumerUsingMyBatis {
  SqlSession session;
}
