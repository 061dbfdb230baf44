package io.txmsg.testkit.rocketmq;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class (or method) that uses the embedded RocketMQ cluster: parameters of type {@link
 * EmbeddedRocketMQ} in constructors, test methods and lifecycle methods receive the cluster shared
 * by the whole test JVM ({@link EmbeddedRocketMQ#shared()}), started on first use.
 *
 * <pre>{@code
 * @EmbeddedRocketMQTest
 * class OrderEventsTest {
 *   @Test
 *   void publishes(EmbeddedRocketMQ rocketmq) {
 *     rocketmq.createTopic("orders", TopicType.TRANSACTION);
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>Tests share the cluster, so each should use its own topic and consumer group names.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EmbeddedRocketMQExtension.class)
public @interface EmbeddedRocketMQTest {}
