package io.txmsg.testkit.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a Spring test's application context against the embedded RocketMQ cluster ({@code
 * EmbeddedRocketMQ.shared()}, one per test JVM), with the topics and consumer groups its {@code
 * txmsg.*} properties name created before the context starts, and the broker address registered as
 * {@code txmsg.broker.name-server} (remoting) or {@code txmsg.broker.endpoints} (gRPC). So a
 * {@code @SpringBootTest} of a txmsg application needs no broker and no hand-made topics:
 *
 * <pre>{@code
 * @SpringBootTest
 * @EmbeddedTxmsgBroker
 * class PaymentServiceTest {
 *   @Autowired PaymentService payments;
 *
 *   @Test
 *   void paymentIsCredited() { ... }
 * }
 * }</pre>
 *
 * <p>What is created, from the properties (application.yml, test properties): each {@code
 * txmsg.producer.topics} entry as a TRANSACTION topic (NORMAL with {@code
 * txmsg.producer.delivery-mode=OUTBOX}), each {@code txmsg.producer.publish-topics} entry as a
 * NORMAL topic, each topic of a {@code txmsg.consumer.groups.<group>.topics} list that the producer
 * does not name as a TRANSACTION topic (an event of another txmsg service, sent as a half message
 * by default), {@link #fifoTopics()}, {@link #normalTopics()} and {@link #transactionTopics()} as
 * they say (they win over the inference); the producer's confirm group ({@code
 * txmsg-confirm-<store-id>}, store id from {@code txmsg.producer.store-id} or {@code
 * spring.application.name}) and every consumer group, with {@link #retryMaxTimes()} redeliveries
 * (0.5 s, then 1 s apart; FIFO when one of its topics is FIFO). Creating an existing topic or group
 * again updates it.
 *
 * <p>Spring rolls a {@code @Transactional} test back: nothing that test writes commits, so no event
 * it published is delivered. A test that expects delivery commits (no {@code @Transactional}, or
 * {@code @Commit}).
 *
 * <p>Needs spring-test on the class path (an optional dependency of txmsg-testkit, there in any
 * Spring test); the annotation is found by {@code EmbeddedTxmsgBrokerContextCustomizerFactory},
 * registered in {@code META-INF/spring.factories}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface EmbeddedTxmsgBroker {

  /** Which of the broker's addresses the application gets. */
  enum Protocol {
    /** gRPC when the application's properties set {@code txmsg.broker.endpoints}, else remoting. */
    AUTO,
    /** The NameServer address, as {@code txmsg.broker.name-server} (txmsg-rocketmq-remoting). */
    REMOTING,
    /** The proxy's gRPC endpoint, as {@code txmsg.broker.endpoints} (txmsg-rocketmq). */
    GRPC
  }

  /** The address property to register; the other one is blanked. */
  Protocol protocol() default Protocol.AUTO;

  /** Topics to create as FIFO topics (e.g. OUTBOX or publish topics with per-aggregate order). */
  String[] fifoTopics() default {};

  /** Topics to create as NORMAL topics. */
  String[] normalTopics() default {};

  /** Topics to create as TRANSACTION topics. */
  String[] transactionTopics() default {};

  /**
   * Redeliveries of each created consumer group after the first attempt (15: 16 deliveries, the
   * default {@code maxAttempts} of a handler, so txmsg parks before the broker dead-letters).
   */
  int retryMaxTimes() default 15;
}
