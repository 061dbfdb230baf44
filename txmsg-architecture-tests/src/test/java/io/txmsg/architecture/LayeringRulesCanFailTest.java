package io.txmsg.architecture;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import io.txmsg.api.archfixture.ApiUsingSlf4j;
import io.txmsg.archfixturea.CycleA;
import io.txmsg.archfixtureb.CycleB;
import io.txmsg.consumer.archfixture.ConsumerUsingMicrometer;
import io.txmsg.consumer.archfixture.ConsumerUsingMyBatis;
import io.txmsg.producer.archfixture.ProducerUsingConsumer;
import io.txmsg.producer.archfixture.ProducerUsingRocketMq;
import io.txmsg.producer.archfixture.ProducerUsingSpring;
import org.junit.jupiter.api.Test;

/**
 * The rules are not vacuous: each one, run over a small test class that breaks it on purpose (the
 * {@code archfixture} packages, test sources only, never part of {@link LayeringRules#libraries}),
 * fails with the rule's sentence and the offending class.
 */
class LayeringRulesCanFailTest {
  @Test
  void producerUsingConsumerFailsTheSiblingRule() {
    assertFails(
        LayeringRules.PRODUCER_NEVER_USES_CONSUMER,
        ProducerUsingConsumer.class,
        "txmsg-producer never uses txmsg-consumer");
  }

  @Test
  void producerUsingRocketMqFailsTheTransportRule() {
    assertFails(
        LayeringRules.ONLY_TRANSPORTS_SPEAK_ROCKETMQ,
        ProducerUsingRocketMq.class,
        "only txmsg-rocketmq and txmsg-rocketmq-remoting");
  }

  @Test
  void producerUsingSpringOutsideTheJoinedPublishFailsTheSpringRule() {
    assertFails(
        LayeringRules.SPRING_ONLY_IN_SPRING_PACKAGES,
        ProducerUsingSpring.class,
        "Spring (org.springframework..) is used only in the *.spring packages");
  }

  @Test
  void consumerUsingMyBatisFailsTheStoreRule() {
    assertFails(
        LayeringRules.ONLY_THE_STORE_SPEAKS_MYBATIS,
        ConsumerUsingMyBatis.class,
        "only txmsg-checkback-store (io.txmsg.store..) uses MyBatis");
  }

  @Test
  void coreConsumerUsingMicrometerFailsTheMicrometerRule() {
    assertFails(
        LayeringRules.MICROMETER_ONLY_IN_MICROMETER_PACKAGES,
        ConsumerUsingMicrometer.class,
        "Micrometer (io.micrometer..) is used only in the *.micrometer packages");
  }

  @Test
  void apiUsingALibraryFailsTheDependencyFreeRule() {
    assertFails(
        LayeringRules.API_USES_ONLY_THE_JDK,
        ApiUsingSlf4j.class,
        "txmsg-api (io.txmsg.api..) uses nothing but the JDK");
  }

  @Test
  void packagesUsingEachOtherFailTheCycleRule() {
    assertThatThrownBy(
            () ->
                LayeringRules.NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES.check(
                    new ClassFileImporter().importClasses(CycleA.class, CycleB.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the top-level packages under io.txmsg have no dependency cycle")
        .hasMessageContaining("archfixturea")
        .hasMessageContaining("archfixtureb");
  }

  private static void assertFails(ArchRule rule, Class<?> violator, String sentence) {
    assertThatThrownBy(() -> rule.check(new ClassFileImporter().importClasses(violator)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(sentence)
        .hasMessageContaining(violator.getName());
  }
}
