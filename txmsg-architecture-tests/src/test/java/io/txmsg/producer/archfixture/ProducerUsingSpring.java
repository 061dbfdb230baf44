package io.txmsg.producer.archfixture;

import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Breaks the Spring rule on purpose: a producer class outside the allow-list (the joined publish's
 * JoinableConnection and JoinedSynchronization) that implements a Spring type.
 */
public class ProducerUsingSpring implements TransactionSynchronization {}
