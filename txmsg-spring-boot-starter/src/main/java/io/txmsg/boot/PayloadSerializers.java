package io.txmsg.boot;

import io.txmsg.api.PayloadSerializer;
import io.txmsg.boot.TxmsgProperties.JsonMapperChoice;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Which payload serializer each runtime gets when the application defines no {@link
 * PayloadSerializer} bean (a bean of its own is used by both runtimes, as in plain Spring).
 *
 * <ul>
 *   <li>Producer: txmsg's own Jackson 2 mapper by default, so the payload bytes (and their hash)
 *       stay those of earlier releases; {@code txmsg.producer.json-mapper=application} writes with
 *       the application's Jackson 3 {@code JsonMapper} instead.
 *   <li>Consumers: the application's {@code JsonMapper} when Spring Boot provides one ({@code
 *       txmsg.consumer.json-mapper=application}, the default), else txmsg's own; both ignore
 *       unknown properties.
 * </ul>
 */
final class PayloadSerializers {
  private static final boolean JACKSON_3 =
      ClassUtils.isPresent(
          "tools.jackson.databind.json.JsonMapper", PayloadSerializers.class.getClassLoader());

  private PayloadSerializers() {}

  /**
   * The producer's serializer, or null to keep the builder's (the application's bean, else txmsg's
   * Jackson 2 mapper).
   *
   * @throws InvalidTxmsgPropertyException when the application's mapper is chosen but there is none
   */
  static PayloadSerializer writer(JsonMapperChoice choice, BeanFactory beanFactory) {
    if (choice != JsonMapperChoice.APPLICATION || applicationBean(beanFactory)) {
      return null;
    }
    PayloadSerializer s = JACKSON_3 ? applicationMapper(beanFactory) : null;
    if (s == null) {
      throw new InvalidTxmsgPropertyException(
          "txmsg.producer.json-mapper",
          "is APPLICATION, but the context has no Jackson 3 JsonMapper bean (Spring Boot's"
              + " spring-boot-jackson provides one); set it to TXMSG or add Jackson 3");
    }
    return s;
  }

  /** The consumers' serializer, or null to keep the builder's. */
  static PayloadSerializer reader(JsonMapperChoice choice, BeanFactory beanFactory) {
    if (choice != JsonMapperChoice.APPLICATION || applicationBean(beanFactory) || !JACKSON_3) {
      return null;
    }
    return applicationMapper(beanFactory);
  }

  private static boolean applicationBean(BeanFactory beanFactory) {
    return beanFactory.getBeanProvider(PayloadSerializer.class).getIfAvailable() != null;
  }

  /** Only called when Jackson 3 is on the class path (Jackson3PayloadSerializer needs it). */
  private static PayloadSerializer applicationMapper(BeanFactory beanFactory) {
    return Jackson3PayloadSerializer.fromContext(beanFactory);
  }
}
