package io.txmsg.consumer.spring;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.consumer.HandlerDefinition;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link TxMessageHandler} methods on beans after initialization (so on the proxy, if any)
 * and turns each into a {@link HandlerDefinition}. Declared as a static bean so that it does not
 * force early initialization of the configuration that declares it.
 *
 * <p>{@code topic}, {@code consumerGroup} and {@code eventType} may hold property placeholders and
 * SpEL ({@code topic = "${payments.topic}"}), resolved against the context's environment as
 * {@code @Value} is; a value that resolves to blank fails the startup naming the attribute and the
 * method.
 */
public class TxMessageHandlerBeanPostProcessor
    implements BeanPostProcessor, EmbeddedValueResolverAware {
  private final List<HandlerDefinition<?>> handlers = new ArrayList<>();
  private StringValueResolver resolver = value -> value;

  @Override
  public void setEmbeddedValueResolver(StringValueResolver resolver) {
    this.resolver = resolver;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> type = AopUtils.getTargetClass(bean);
    Map<Method, TxMessageHandler> found =
        MethodIntrospector.selectMethods(
            type,
            (MethodIntrospector.MetadataLookup<TxMessageHandler>)
                m -> AnnotatedElementUtils.findMergedAnnotation(m, TxMessageHandler.class));
    found.forEach((method, annotation) -> register(bean, beanName, method, annotation));
    return bean;
  }

  private void register(Object bean, String beanName, Method method, TxMessageHandler a) {
    Class<?>[] params = method.getParameterTypes();
    boolean withContext = params.length == 2 && params[1] == ConsumeContext.class;
    if (!(params.length == 1 || withContext)) {
      throw new IllegalStateException(
          "@TxMessageHandler method "
              + beanName
              + "."
              + method.getName()
              + " must take (Payload) or (Payload, ConsumeContext)");
    }
    String where = beanName + "." + method.getName();
    String group = resolve("consumerGroup", a.consumerGroup(), where);
    String topic = resolve("topic", a.topic(), where);
    String eventType = resolve("eventType", a.eventType(), where);
    Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    invocable.setAccessible(true);
    synchronized (handlers) {
      handlers.add(
          HandlerDefinition.of(
                  group,
                  topic,
                  eventType,
                  params[0],
                  (event, ctx) -> invoke(bean, invocable, withContext, event, ctx))
              .options(a)
              .describedAs(where));
    }
  }

  private String resolve(String attribute, String value, String where) {
    String resolved = resolver.resolveStringValue(value);
    // Without a PropertySourcesPlaceholderConfigurer Spring leaves an unknown placeholder as it
    // is; "${" is no valid part of a topic or group name, so it can only be one.
    if (resolved == null || resolved.isBlank() || resolved.contains("${")) {
      throw new IllegalStateException(
          "@TxMessageHandler "
              + attribute
              + " of "
              + where
              + (resolved == null || resolved.isBlank()
                  ? " is blank"
                  : " has an unresolved placeholder: " + resolved)
              + " (declared as \""
              + value
              + "\")");
    }
    return resolved;
  }

  private static void invoke(
      Object bean, Method method, boolean withContext, Object event, ConsumeContext ctx)
      throws Exception {
    try {
      if (withContext) {
        method.invoke(bean, event, ctx);
      } else {
        method.invoke(bean, event);
      }
    } catch (InvocationTargetException e) {
      // The handler's own exception decides retry or parking, not the reflection wrapper.
      if (e.getCause() instanceof Exception ex) {
        throw ex;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /** The handlers found so far. */
  public List<HandlerDefinition<?>> handlers() {
    synchronized (handlers) {
      return List.copyOf(handlers);
    }
  }
}
