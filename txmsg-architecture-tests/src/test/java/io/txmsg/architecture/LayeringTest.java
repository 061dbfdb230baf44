package io.txmsg.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The layering rules hold for every library module's main classes as built today. */
class LayeringTest {
  private static JavaClasses libraries;

  @BeforeAll
  static void importLibraries() {
    libraries = LayeringRules.libraries();
  }

  @Test
  void seesEveryLibraryModule() {
    // A rule over an import that misses a module would pass without looking at it.
    Set<String> packages =
        StreamSupport.stream(libraries.spliterator(), false)
            .map(JavaClass::getPackageName)
            .collect(Collectors.toSet());
    assertThat(packages)
        .contains(
            "io.txmsg.api",
            "io.txmsg.transport",
            "io.txmsg.micrometer",
            "io.txmsg.store",
            "io.txmsg.testkit.cluster",
            "io.txmsg.testkit",
            "io.txmsg.rocketmq",
            "io.txmsg.rocketmq.remoting",
            "io.txmsg.producer",
            "io.txmsg.consumer",
            "io.txmsg.cdc",
            "io.txmsg.cli",
            "io.txmsg.boot");
    assertThat(packages).noneMatch(p -> p.startsWith("io.txmsg.architecture"));
  }

  @Test
  void onlyTransportsSpeakRocketMq() {
    LayeringRules.ONLY_TRANSPORTS_SPEAK_ROCKETMQ.check(libraries);
  }

  @Test
  void onlyTheStoreSpeaksMyBatis() {
    LayeringRules.ONLY_THE_STORE_SPEAKS_MYBATIS.check(libraries);
  }

  @Test
  void onlyCdcSpeaksDebezium() {
    LayeringRules.ONLY_CDC_SPEAKS_DEBEZIUM.check(libraries);
  }

  @Test
  void producerNeverUsesConsumer() {
    LayeringRules.PRODUCER_NEVER_USES_CONSUMER.check(libraries);
  }

  @Test
  void consumerNeverUsesProducer() {
    LayeringRules.CONSUMER_NEVER_USES_PRODUCER.check(libraries);
  }

  @Test
  void apiUsesOnlyTheJdk() {
    LayeringRules.API_USES_ONLY_THE_JDK.check(libraries);
  }

  @Test
  void transportUsesOnlyTheJdkAndApi() {
    LayeringRules.TRANSPORT_USES_ONLY_THE_JDK_AND_API.check(libraries);
  }

  @Test
  void springOnlyInSpringPackages() {
    LayeringRules.SPRING_ONLY_IN_SPRING_PACKAGES.check(libraries);
  }

  @Test
  void micrometerOnlyInMicrometerPackages() {
    LayeringRules.MICROMETER_ONLY_IN_MICROMETER_PACKAGES.check(libraries);
  }

  @Test
  void noCyclesBetweenTopLevelPackages() {
    LayeringRules.NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES.check(libraries);
  }
}
