package io.txmsg.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The layering of the modules (docs/architecture.md, the module map) as rules over the compiled
 * classes: which package may speak to which library, and which modules stay free of everything but
 * the JDK. Each rule reads as the sentence it enforces; a violation fails the build with that
 * sentence and the offending class and member.
 */
final class LayeringRules {
  private LayeringRules() {}

  /** Every library module's main classes (tests, benchmarks and examples are not libraries). */
  static JavaClasses libraries() {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.txmsg");
  }

  static final ArchRule ONLY_TRANSPORTS_SPEAK_ROCKETMQ =
      noClasses()
          .that()
          .resideOutsideOfPackages("io.txmsg.rocketmq..", "io.txmsg.testkit..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.apache.rocketmq..")
          .as(
              "only txmsg-rocketmq and txmsg-rocketmq-remoting (io.txmsg.rocketmq..) and the"
                  + " testkit's embedded cluster use RocketMQ (org.apache.rocketmq..)")
          .because("everything else reaches the broker through the transport port");

  static final ArchRule ONLY_THE_STORE_SPEAKS_MYBATIS =
      noClasses()
          .that()
          .resideOutsideOfPackage("io.txmsg.store..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("org.apache.ibatis..", "org.mybatis..")
          .as("only txmsg-checkback-store (io.txmsg.store..) uses MyBatis")
          .because("all SQL lives in the store's mappers, one set per dialect");

  static final ArchRule ONLY_CDC_SPEAKS_DEBEZIUM =
      noClasses()
          .that()
          .resideOutsideOfPackage("io.txmsg.cdc..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.debezium..", "org.apache.kafka..")
          .as("only txmsg-cdc (io.txmsg.cdc..) uses Debezium and Kafka Connect types")
          .because("the CDC delivery mode is an optional module; nothing else may need its jars");

  static final ArchRule PRODUCER_NEVER_USES_CONSUMER =
      noClasses()
          .that()
          .resideInAPackage("io.txmsg.producer..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.txmsg.consumer..")
          .as("txmsg-producer never uses txmsg-consumer")
          .because("producer and consumer are siblings over the store and the transport port");

  static final ArchRule CONSUMER_NEVER_USES_PRODUCER =
      noClasses()
          .that()
          .resideInAPackage("io.txmsg.consumer..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.txmsg.producer..")
          .as("txmsg-consumer never uses txmsg-producer")
          .because("producer and consumer are siblings over the store and the transport port");

  static final ArchRule API_USES_ONLY_THE_JDK =
      classes()
          .that()
          .resideInAPackage("io.txmsg.api..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "io.txmsg.api..")
          .as("txmsg-api (io.txmsg.api..) uses nothing but the JDK")
          .because("users write against it without Spring, RocketMQ or MyBatis on the classpath");

  static final ArchRule TRANSPORT_USES_ONLY_THE_JDK_AND_API =
      classes()
          .that()
          .resideInAPackage("io.txmsg.transport..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "io.txmsg.api..", "io.txmsg.transport..")
          .as("txmsg-transport (io.txmsg.transport..) uses nothing but the JDK and txmsg-api")
          .because("the transport port names no broker client; the adapters implement it");

  static final ArchRule SPRING_ONLY_IN_SPRING_PACKAGES =
      noClasses()
          .that()
          .resideOutsideOfPackages("..spring..", "io.txmsg.boot..", "..micrometer..")
          // The joined publish IS a Spring transaction synchronization: its two Spring-facing
          // classes, used only by JoinedPublisher, which DefaultTxMessageTemplate constructs only
          // when spring-tx and spring-jdbc are on the class path.
          .and()
          .haveNameNotMatching(
              "io\\.txmsg\\.producer\\.(JoinableConnection|JoinedSynchronization)(\\$.*)?")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.springframework..")
          .as(
              "Spring (org.springframework..) is used only in the *.spring packages, the Boot"
                  + " starter (io.txmsg.boot..), the *.micrometer packages' bean-factory lookups"
                  + " and the producer's joined publish (JoinableConnection and"
                  + " JoinedSynchronization, used only with spring-tx)")
          .because("the core runs without Spring: a plain DataSource and the builders");

  static final ArchRule MICROMETER_ONLY_IN_MICROMETER_PACKAGES =
      noClasses()
          .that()
          .resideOutsideOfPackages("..micrometer..", "io.txmsg.boot..")
          .and()
          .haveNameNotMatching(
              "io\\.txmsg\\.(producer\\.TxProducer|consumer\\.TxConsumers)\\$Builder")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.micrometer..")
          .as(
              "Micrometer (io.micrometer..) is used only in the *.micrometer packages, the Boot"
                  + " starter (io.txmsg.boot..) and the registry setters of the TxProducer and"
                  + " TxConsumers builders")
          .because(
              "the core talks to a metrics interface with a no-op default and runs without"
                  + " Micrometer on the classpath");

  static final ArchRule NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES =
      slices()
          .matching("io.txmsg.(*)..")
          .should()
          .beFreeOfCycles()
          .as("the top-level packages under io.txmsg have no dependency cycle")
          .because("module dependencies point down");
}
