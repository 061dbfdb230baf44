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
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds {@link TxMessageHandler} methods on beans after initialization (so on the proxy, if any)
 * and turns each into a {@link HandlerDefinition}. Declared as a static bean so that it does not
 * force early initialization of the configuration that declares it.
 */
public class TxMessageHandlerBeanPostProcessor implements BeanPostProcessor {
  private final List<HandlerDefinition<?>> handlers = new ArrayList<>();

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
    Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    invocable.setAccessible(true);
    synchronized (handlers) {
      handlers.add(
          HandlerDefinition.of(
                  a.consumerGroup(),
                  a.topic(),
                  a.eventType(),
                  params[0],
                  (event, ctx) -> invoke(bean, invocable, withContext, event, ctx))
              .options(a)
              .describedAs(beanName + "." + method.getName()));
    }
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
